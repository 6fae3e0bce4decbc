package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// renderedJSONValue is toJSONValue the long way: the node tree, read back.
func renderedJSONValue(t *testing.T, o Object) any {
	n, _, err := objectNode(o.Obj)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := newConverter(false).untyped(n, nil, 0)
	if !ok {
		t.Fatalf("%s: does not convert", o.Source)
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
	for _, dir := range []string{"../../examples/payments", tree.Dir} {
		set, err := Load([]string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, set.Objects...)
	}
	files, _ := filepath.Glob("../../testdata/badinput/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := Decode(f, data)
		objs = append(objs, o...)
	}
	typed := 0
	for _, o := range objs {
		got, err := typedJSONValue(o.Obj)
		if err == errNotTyped {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", o.Source, err)
		}
		typed++
		if want := renderedJSONValue(t, o); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", o.Source, got, want)
		}
	}
	t.Logf("%d typed objects compared", typed)
	if typed < 40 {
		t.Fatalf("only %d typed objects compared", typed)
	}
}
