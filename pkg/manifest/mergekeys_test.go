package manifest

import (
	"reflect"
	"testing"
)

// Merge keys: explicit keys win, then the sources in order, each source's own keys
// before those it merges in turn.
func TestNestedMerges(t *testing.T) {
	doc := `apiVersion: v1
kind: ConfigMap
metadata: {name: m}
base: &base {a: "1", b: "1"}
inner: &inner
  <<: *base
  b: "2"
  c: "2"
data:
  <<: [*inner, {a: "3", c: "3", d: "3", e: "3"}]
  d: "4"
`
	objs, err := Decode("m.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := objs[0].Obj.(interface{ UnstructuredContent() map[string]any }).UnstructuredContent()["data"]
	want := map[string]any{"a": "1", "b": "2", "c": "2", "d": "4", "e": "3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
