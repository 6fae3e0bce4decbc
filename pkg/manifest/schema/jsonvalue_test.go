package schema

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// renderedJSONValue is toJSONValue the long way: the node tree, read back.
func renderedJSONValue(t *testing.T, name string, o Object) any {
	n, _, err := ObjectNode(o.Obj)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := newConverter(false).untyped(n, nil, 0)
	if !ok {
		t.Fatalf("%s: does not convert", name)
	}
	return v
}

// typedJSONValue gives what rendering and reading back give, for every typed object of
// the examples, of a generated tree and of the bad-input corpus (those that decode).
func TestTypedJSONValueAsRendered(t *testing.T) {
	tree, err := manifesttest.Generate(t.TempDir(), 3, 30)
	if err != nil {
		t.Fatal(err)
	}
	var objs []Object
	var names []string
	add := func(f string) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := decode(f, data)
		objs = append(objs, o...)
		for range o {
			names = append(names, f)
		}
	}
	for _, dir := range []string{"../../../examples/payments", tree.Dir} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isManifest(p) {
				add(p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob("../../../testdata/badinput/*.yaml")
	for _, f := range files {
		add(f)
	}
	typed := 0
	for i, o := range objs {
		got, err := typedJSONValue(o.Obj)
		if err == errNotTyped {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		typed++
		if want := renderedJSONValue(t, names[i], o); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", names[i], got, want)
		}
	}
	t.Logf("%d typed objects compared", typed)
	if typed < 40 {
		t.Fatalf("only %d typed objects compared", typed)
	}
}
