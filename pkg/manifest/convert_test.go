package manifest

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// plainDecimal reads what the YAML decoder reads, or leaves the text to it.
func TestPlainDecimalAsDecoder(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-7", "42", "007", "0x1f", "0o17", "+3", "1_000", "-", "", "123456789012345678",
		"1234567890123456789", "-999999999999999999", "9223372036854775807", "1e3", "12a", "--1"} {
		i, ok := plainDecimal(s)
		if !ok {
			continue
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := n.Content[0].Decode(&v); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if n.Content[0].ShortTag() != "!!int" || int64(v.(int)) != i {
			t.Errorf("%q: plainDecimal %d, decoder %v (%s)", s, i, v, n.Content[0].ShortTag())
		}
	}
}

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
