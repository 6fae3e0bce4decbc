package schema

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// decode converts the objects of known kinds in the documents of a file as a Load does
// (lines and explicit values included), leaving out its other documents: the objects the
// tests of this package validate and render.
func decode(file string, data []byte) ([]Object, error) {
	tab := yamldoc.NewPathTable()
	var objs []Object
	var errs []error
	for _, seg := range yamldoc.SplitDocuments(string(data)) {
		if seg.Doc < 0 {
			continue
		}
		doc, _, msg, err := yamldoc.ParseSegment(seg)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s", file, msg))
			continue
		}
		if doc == nil {
			continue
		}
		shift(doc, seg.Line-1)
		n := yamldoc.Resolve(doc.Content[0])
		h := readHeader(n)
		ki, _ := KindFor(h.apiVersion, h.kind)
		if ki == nil || n.Kind != yaml.MappingNode {
			continue
		}
		lines := yamldoc.NewLineIndex(tab)
		c := NewConverter(ki, Options{Lines: lines})
		obj := ki.NewTyped()
		ok := c.Fill(n, obj)
		lines.Done()
		ki.SetType(obj, h.apiVersion, h.kind)
		if !ok || len(c.Problems()) > 0 {
			errs = append(errs, fmt.Errorf("%s: document %d: %v", file, seg.Doc+1, c.Problems()))
			continue
		}
		objs = append(objs, Object{Obj: obj, APIVersion: h.apiVersion, Kind: h.kind, Lines: lines, Explicit: c.Explicit()})
	}
	return objs, errors.Join(errs...)
}

// shift makes a segment's lines the file's.
func shift(n *yaml.Node, off int) {
	n.Line += off
	for _, c := range n.Content {
		shift(c, off)
	}
}

// header is what a document says it is.
type header struct{ apiVersion, kind string }

func readHeader(n *yaml.Node) header {
	var h header
	if n.Kind != yaml.MappingNode {
		return h
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch v := yamldoc.Resolve(n.Content[i+1]); n.Content[i].Value {
		case "apiVersion":
			h.apiVersion = v.Value
		case "kind":
			h.kind = v.Value
		}
	}
	return h
}

// validate is Validate's findings by the typed walk, without the CEL rules (those are the
// caller's), as an error.
func validate(o Object) error {
	found, err := Validate(o, true, noCEL)
	if err != nil {
		return err
	}
	return found.ToAggregate()
}

func noCEL(runtime.Object) field.ErrorList { return nil }

// isManifest is what a Load reads of a directory, by name.
func isManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// The first lines of test documents.
const (
	teamHeader = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: payments\n"
	userHeader = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: dan\nspec:\n  email: dan@example.com\n"
)
