package manifest

import (
	"errors"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// A repository holds YAML that is not Kubernetes (.pre-commit-config.yaml,
// docker-compose.yml, Helm's values.yaml, a CI workflow). Such a document is no object of
// the tree, so a Load lists it (Set.NotObjects) rather than refusing the tree. Only a
// mapping that carries nothing of an object is one: a document with apiVersion or kind,
// or with metadata or spec but neither (a manifest that lost its header), stays an error,
// as does a document that is not a mapping.

// objectKeys are the top-level keys that make a document a manifest, compared without
// case, '_' or '-', so that a misspelt header (apiversion, Kind, api_version) is a broken
// manifest rather than something else. A merge key may bring any of them.
var objectKeys = map[string]bool{"apiversion": true, "kind": true, "metadata": true, "spec": true, "<<": true}

// notObject reports whether a mapping document holds none of objectKeys.
func notObject(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := yamldoc.Resolve(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			return false // a key of another shape: the converter words its error
		}
		name := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k.Value))
		if objectKeys[name] {
			return false
		}
	}
	return true
}

// splitNotObjects takes the documents that are not Kubernetes objects out of a Load's
// errors: what is left, and where each such document is.
func splitNotObjects(errs []error) ([]error, []Source) {
	var rest []error
	var srcs []Source
	var walk func(err error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var de *DecodeError
		if errors.As(err, &de) && de.NotObject {
			srcs = append(srcs, Source{File: de.File, Doc: de.Doc, Line: de.Line})
			return
		}
		rest = append(rest, err)
	}
	for _, e := range errs {
		walk(e)
	}
	if srcs == nil {
		return errs, nil // as they were, joined by file
	}
	return rest, srcs
}
