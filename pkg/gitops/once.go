package gitops

import (
	"bytes"
	"io"
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// A Load reads each source once: standard input is kept as it is read and given again to
// a later pass (a stream cannot be read twice), the files holding CustomResourceDefinitions
// are kept as the first pass reads them, and fields the tools do not know are tolerated
// provisionally in that pass and settled at its end (manifest.Options.Settle), so that
// neither a tree whose CRDs declare them nor one refused for a field they do not declare
// needs a second pass. The clusters a load keeps as records are read again through the
// set's Clusters, a document at a time, by design.

// onceReader is what a Load keeps of what it read.
type onceReader struct {
	read    func(path string, limit int64) ([]byte, error) // Options.Manifest.ReadFile, or fileio's
	stdin   io.Reader
	started bool
	kept    bytes.Buffer // standard input as the first pass read it

	mu   sync.Mutex
	crds []manifest.File // files holding CustomResourceDefinitions, in the order read
}

// stdinFor is standard input for a pass: the stream itself, kept as it is read, the first
// time; what the first pass read after that.
func (o *onceReader) stdinFor() io.Reader {
	if o.stdin == nil {
		return nil
	}
	if !o.started {
		o.started = true
		return io.TeeReader(o.stdin, &o.kept)
	}
	return bytes.NewReader(o.kept.Bytes())
}

func newOnceReader(stdin io.Reader, read func(path string, limit int64) ([]byte, error)) *onceReader {
	if read == nil {
		read = fileio.ReadFile
	}
	return &onceReader{stdin: stdin, read: read}
}

// readFile is manifest.Options.ReadFile: the caller's, keeping the files that may hold
// CustomResourceDefinitions (crdTolerance decodes them from here).
func (o *onceReader) readFile(path string, limit int64) ([]byte, error) {
	data, err := o.read(path, limit)
	if err == nil && manifest.ManifestFile(path) && bytes.Contains(data, []byte("CustomResourceDefinition")) {
		o.mu.Lock()
		o.crds = append(o.crds, manifest.File{Name: path, Data: data})
		o.mu.Unlock()
	}
	return data, err
}

// readCRDFiles reads the files opts.CRDs names (another tree's: the base of a change),
// through the caller's ReadFile, which may keep them for that tree's own load.
func (o *onceReader) readCRDFiles(files []string, limit int64) []manifest.File {
	if limit <= 0 {
		limit = manifest.DefaultMaxFileBytes
	}
	var out []manifest.File
	for _, f := range files {
		if !manifest.ManifestFile(f) {
			continue
		}
		data, err := o.read(f, limit)
		if err == nil && bytes.Contains(data, []byte("CustomResourceDefinition")) {
			out = append(out, manifest.File{Name: f, Data: data})
		}
	}
	return out
}
