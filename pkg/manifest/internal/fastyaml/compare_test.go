package fastyaml_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// reference parses text as the loader does without the fast path: one document with
// yaml.v3's Decoder; false for an error, no document, or a second document.
func reference(text string) (doc *yaml.Node, ok bool) {
	defer func() {
		if recover() != nil {
			doc, ok = nil, false
		}
	}()
	dec := yaml.NewDecoder(strings.NewReader(text))
	var d yaml.Node
	if err := dec.Decode(&d); err != nil {
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return &d, true
}

// diff describes the first difference between two trees, ignoring only comments; "" when
// they are the same.
func diff(got, want *yaml.Node, path string) string {
	if got == nil || want == nil {
		if got != want {
			return fmt.Sprintf("%s: node %v, want %v", path, got, want)
		}
		return ""
	}
	type fields struct {
		Kind         yaml.Kind
		Style        yaml.Style
		Tag, Value   string
		Anchor       string
		Alias        bool
		Line, Column int
		Content      int
	}
	f := func(n *yaml.Node) fields {
		return fields{n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Alias != nil, n.Line, n.Column, len(n.Content)}
	}
	if g, w := f(got), f(want); g != w {
		return fmt.Sprintf("%s: got %+v, want %+v", path, g, w)
	}
	for i := range got.Content {
		if d := diff(got.Content[i], want.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}
