package cmdutil

import (
	"errors"
	"io"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// ReadManifests decodes files, directories (their .yaml, .yml and .json files, hidden
// ones included, tool folders left out: manifest.ToolDirs) and "-" (stdin), strictly as --manifests does, but keeps going past bad
// documents so that every problem is found. It returns the objects that decoded and the
// problems of those that did not.
func ReadManifests(paths []string, stdin io.Reader) ([]manifest.Object, []*manifest.DecodeError) {
	var objs []manifest.Object
	var probs []*manifest.DecodeError
	read := func(name string, data []byte) {
		o, err := manifest.Decode(name, data)
		objs = append(objs, o...)
		for _, p := range DecodeErrors(err) {
			if !p.NotObject { // YAML that is no object (no apiVersion, kind or metadata), as a Load skips it
				probs = append(probs, p)
			}
		}
	}
	// The loader's reader: bounded, and refusing a FIFO or a device instead of waiting.
	for _, err := range manifest.ReadFiles(paths, stdin, manifest.Options{}, read) {
		probs = append(probs, &manifest.DecodeError{Msg: err.Error()})
	}
	return objs, probs
}

// DecodeErrors flattens an error from the manifest package into its *DecodeError values;
// anything else becomes a problem with only a message.
func DecodeErrors(err error) []*manifest.DecodeError {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*manifest.DecodeError
		for _, e := range j.Unwrap() {
			out = append(out, DecodeErrors(e)...)
		}
		return out
	}
	var de *manifest.DecodeError
	if errors.As(err, &de) {
		return []*manifest.DecodeError{de}
	}
	return []*manifest.DecodeError{{Msg: err.Error()}}
}
