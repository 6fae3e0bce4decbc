package schema

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/editdist"
)

// scalar converts a scalar the way YAML 1.2 resolves it; timestamps stay text.
func (c *converter) scalar(n *yaml.Node, p *field.Path) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		switch n.Value { // the usual spellings, without a decoder
		case "true":
			return true, true
		case "false":
			return false, true
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			c.fail(p, n.Line, "invalid boolean %q", n.Value)
			return nil, false
		}
		return b, true
	case "!!int":
		if i, ok := plainDecimal(n.Value); ok {
			return i, true
		}
		var v any
		if err := n.Decode(&v); err != nil {
			c.fail(p, n.Line, "invalid integer %q", n.Value)
			return nil, false
		}
		switch x := v.(type) {
		case int:
			return int64(x), true
		case int64:
			return x, true
		case uint64:
			return float64(x), true
		case float64:
			return x, true
		}
		c.fail(p, n.Line, "invalid integer %q", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			c.fail(p, n.Line, "invalid number %q", n.Value)
			return nil, false
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			c.fail(p, n.Line, "%s cannot be represented in JSON", n.Value)
			return nil, false
		}
		return f, true
	}
	// !!str, !!timestamp, !!binary and custom tags keep their text.
	return n.Value, true
}

// plainDecimal reads an integer written in decimal digits alone (an optional minus, no
// leading zero, no more than 18 digits) the way the decoder does, without one; ok is
// false for any other spelling, which the decoder reads.
func plainDecimal(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var i int64
	for j := 0; j < len(digits); j++ {
		d := digits[j]
		if d < '0' || d > '9' {
			return 0, false
		}
		i = i*10 + int64(d-'0')
	}
	if len(digits) < len(s) {
		i = -i
	}
	return i, true
}

func (c *converter) scalarString(n *yaml.Node, p *field.Path, want string) (string, bool) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int", "!!float", "!!bool", "!!null":
		default:
			return c.intern.Str(n.Value), true
		}
	}
	c.wrongType(n, p, want)
	return "", false
}

func (c *converter) quantity(n *yaml.Node, p *field.Path) (any, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!bool" {
		c.wrongType(n, p, "a quantity (e.g. 16Gi, 500m, 4)")
		return nil, false
	}
	if _, err := resource.ParseQuantity(strings.TrimSpace(n.Value)); err != nil {
		c.fail(p, n.Line, "invalid quantity %q: expected a Kubernetes quantity such as 16Gi, 500m or 4", n.Value)
		return nil, false
	}
	if n.ShortTag() == "!!str" {
		return n.Value, true
	}
	return c.scalar(n, p)
}

func (c *converter) integer(n *yaml.Node, t reflect.Type, p *field.Path) (any, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		c.wrongType(n, p, "an integer")
		return nil, false
	}
	v, ok := c.scalar(n, p)
	if !ok {
		return nil, false
	}
	i, isInt := v.(int64)
	if !isInt || !fits(i, t) {
		c.fail(p, n.Line, "integer %s out of range for %s", n.Value, t.Kind())
		return nil, false
	}
	return i, true
}

func fits(i int64, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if i < 0 {
			return false
		}
		return t.Bits() == 64 || uint64(i) < 1<<t.Bits()
	}
	if t.Bits() == 64 {
		return true
	}
	lim := int64(1) << (t.Bits() - 1)
	return i >= -lim && i < lim
}

func (c *converter) wrongType(n *yaml.Node, p *field.Path, want string) {
	hint := ""
	if n.Kind == yaml.ScalarNode && want == "a string" {
		hint = " (quote it to keep it text)"
	}
	c.fail(p, n.Line, "expected %s, got %s%s", want, Describe(n), hint)
}

func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:37] + "..."
		}
		switch n.ShortTag() {
		case "!!int":
			return "the integer " + v
		case "!!float":
			return "the number " + v
		case "!!bool":
			return "the boolean " + v
		case "!!null":
			return "null"
		}
		return "the string " + strconv.Quote(v)
	}
	return "an alias"
}

// Suggest returns ` (did you mean "x"?)` for a near miss.
func Suggest(k string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if strings.EqualFold(n, k) {
			return fmt.Sprintf(" (did you mean %q?)", n)
		}
		if d := editdist.Levenshtein(strings.ToLower(k), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD*3 > len(k) {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
