package edit_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/edit"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// FuzzEditRoundTrip checks the writer's promise on any input that decodes: writing an
// object back unchanged leaves its document byte for byte as it was, and an edit of one
// field (a label added) reads back as exactly that edit, nothing else changed.
func FuzzEditRoundTrip(f *testing.F) {
	fuzzSeeds(func(b []byte) { f.Add(b) })
	f.Add([]byte("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: t, labels: {a: \"2\"}}\nspec:\n  displayName: !custom \"2\"\n  environments:\n  - {name: dev, description: !!str 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<13 {
			return
		}
		objs, err := manifest.Decode("f.yaml", data)
		if err != nil {
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
				if out != s.Text {
					t.Fatalf("rewriting %s unchanged changed it:\n%q\n%q", o.Source, s.Text, out)
				}
				edited := o.Obj.DeepCopyObject()
				m, err := meta.Accessor(edited)
				if err != nil {
					continue
				}
				labels := m.GetLabels()
				if labels == nil {
					labels = map[string]string{}
				}
				labels["fuzz.example.com/edited"] = "2"
				m.SetLabels(labels)
				out, err = edit.EditDocument(s, o.Source.Item, edited, false)
				if errors.Is(err, edit.ErrAnchored) {
					continue // refused by name: anchors are never flattened into copies
				}
				if err != nil {
					t.Fatalf("editing %s: %v\n%q", o.Source, err, s.Text)
				}
				again, err := manifest.Decode("f.yaml", []byte(out))
				if err != nil {
					t.Fatalf("edited %s does not decode: %v\n%q", o.Source, err, out)
				}
				for _, a := range again {
					if a.Source.Item == o.Source.Item && !sameObject(a.Obj, edited) {
						t.Fatalf("edited %s reads back as something else\n%q\n%q", o.Source, s.Text, out)
					}
				}
			}
		}
	})
}

func sameObject(a, b runtime.Object) bool {
	ua, err1 := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	ub, err2 := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(ua, ub)
}

func fuzzSeeds(add func([]byte)) { manifesttest.FuzzSeeds(filepath.Join("..", "..", ".."), add) }
