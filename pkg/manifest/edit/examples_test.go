package edit_test

import (
	"os"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/edit"
)

func TestWriteExamplesUnchanged(t *testing.T) {
	set, err := manifest.Load([]string{"../../../examples/payments"}, nil) // examples/flux is a Flux tree: pkg/gitops reads it
	if err != nil {
		t.Skip("examples not readable:", err)
	}
	var changes []edit.Change
	before := map[string]string{}
	for i := range set.Objects {
		o := &set.Objects[i]
		changes = append(changes, edit.Change{Source: source(o), Obj: o.Obj})
		data, err := os.ReadFile(o.Source.File)
		if err != nil {
			t.Fatal(err)
		}
		before[o.Source.File] = string(data)
	}
	out, err := edit.Rendered(changes)
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range out {
		if string(data) != before[path] {
			t.Errorf("%s would change:\n%s", path, data)
		}
	}
}

// source is where o was read from, as a Change of this package names it.
func source(o *manifest.Object) *edit.Source {
	return &edit.Source{File: o.Source.File, Doc: o.Source.Doc, Item: o.Source.Item, Name: o.Source.String()}
}
