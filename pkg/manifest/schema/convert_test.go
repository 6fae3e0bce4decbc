package schema

import (
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
