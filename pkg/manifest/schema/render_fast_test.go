package schema

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// jsonNode's shortcut for plain JSON strings gives the node the YAML parse gives.
func TestJSONNodePlainStringsAsParsed(t *testing.T) {
	for _, s := range []string{`"8Gi"`, `"500m"`, `"2024-05-01T12:00:00Z"`, `""`, `" a: b # c "`,
		`"- x"`, `"true"`, `"null"`, `"123"`, `"~"`, `"a\"b"`, `"\u00e9"`, `"é"`, "\"\u2028\""} {
		fast, err := jsonNode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
			continue // not the shortcut's business: it declines what does not parse
		}
		slow := doc.Content[0]
		slow.Style, slow.Line, slow.Column, slow.Tag = 0, 0, 0, slow.ShortTag()
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: got %+v, parsed %+v", s, fast, slow)
		}
	}
}
