package edit_test

import (
	"errors"
	"reflect"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/edit"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// FuzzDecode checks that no input makes Decode or Validate panic or hang, and that every
// object that decodes can be written back into its document.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Decode("f.yaml", data)
		for _, o := range objs {
			_ = manifest.Validate(o)
		}
		if err != nil || len(data) > 1<<14 {
			return
		}
		segs := yamldoc.SplitDocuments(string(data))
		for _, o := range objs {
			for _, s := range segs {
				if s.Doc != o.Source.Doc {
					continue
				}
				out, err := edit.EditDocument(s, o.Source.Item, o.Obj, false)
				if err != nil {
					t.Fatalf("rewriting %s unchanged: %v\n%q", o.Source, err, s.Text)
				}
				again, err := manifest.Decode("f.yaml", []byte(out))
				if err != nil || len(again) == 0 {
					t.Fatalf("rewritten %s does not decode: %v\n%q", o.Source, err, out)
				}
			}
		}
	})
}

// FuzzWrite edits objects of arbitrary shape (other tools' kinds decode as unstructured)
// and checks that the edited document reads back as the edited object.
func FuzzWrite(f *testing.F) {
	fuzzSeeds(func(b []byte) {
		for op := uint8(0); op < 12; op += 5 {
			f.Add(b, op)
		}
	})
	f.Fuzz(func(t *testing.T, data []byte, op uint8) {
		if len(data) > 1<<13 {
			return
		}
		objs, err := manifest.Decode("f.yaml", data)
		if err != nil {
			return
		}
		segs := yamldoc.SplitDocuments(string(data))
		for _, o := range objs {
			u, ok := o.Obj.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			u = u.DeepCopy()
			mutate(u.Object, op, 0)
			for _, s := range segs {
				if s.Doc != o.Source.Doc {
					continue
				}
				out, err := edit.EditDocument(s, o.Source.Item, u, false)
				if errors.Is(err, edit.ErrAnchored) {
					continue // refused by name: anchors are never flattened into copies
				}
				if err != nil {
					t.Fatalf("editing %s: %v\n%q", o.Source, err, s.Text)
				}
				again, err := manifest.Decode("f.yaml", []byte(out))
				if err != nil {
					t.Fatalf("edited %s does not decode: %v\n%q\n%q", o.Source, err, s.Text, out)
				}
				for _, a := range again {
					if a.Source.Item == o.Source.Item {
						if got := a.Obj.(*unstructured.Unstructured).Object; !reflect.DeepEqual(got, u.Object) {
							t.Fatalf("edited %s reads back as\n%v\nwant\n%v\n%q", o.Source, got, u.Object, out)
						}
					}
				}
			}
		}
	})
}

// mutate changes a map deterministically, leaving the object's identity alone.
func mutate(m map[string]any, op uint8, depth int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if depth == 0 && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if depth < 3 && op&16 != 0 {
		for _, k := range keys {
			if sub, ok := m[k].(map[string]any); ok {
				mutate(sub, op, depth+1)
				return
			}
		}
	}
	switch op % 6 {
	case 0:
		m["zz-new"] = map[string]any{"a": "b", "list": []any{"x", int64(1)}}
	case 1:
		if len(keys) > 0 {
			delete(m, keys[0])
		}
	case 2:
		if len(keys) > 0 {
			m[keys[len(keys)-1]] = "changed: value"
		}
	case 3:
		for _, k := range keys {
			if l, ok := m[k].([]any); ok {
				m[k] = append(l, map[string]any{"name": "added"})
				return
			}
		}
		m["zz-list"] = []any{}
	case 4:
		for _, k := range keys {
			if l, ok := m[k].([]any); ok && len(l) > 1 {
				l[0], l[len(l)-1] = l[len(l)-1], l[0]
				return
			}
		}
	case 5:
		for _, k := range keys {
			m[k] = int64(7)
			return
		}
	}
}
