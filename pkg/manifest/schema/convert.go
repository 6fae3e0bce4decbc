package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

var (
	quantityType    = reflect.TypeOf(resource.Quantity{})
	timeType        = reflect.TypeOf(metav1.Time{})
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

// quotedIntFields lists integer fields that may be written as a quoted integer: the Team
// document writes workerCPU: "4" (docs/rules.md §1.4), the live CRD wants an integer.
var quotedIntFields = map[reflect.Type]map[string]bool{
	reflect.TypeOf(v1alpha1.ClusterDefaults{}): {"workerCPU": true},
}

// maxNodes bounds the work per document, so that alias bombs fail instead of exploding.
const maxNodes = yamldoc.MaxNodes

// maxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const maxDepth = yamldoc.MaxDepth

type convError struct {
	field string
	line  int
	msg   string
}

// converter turns a yaml.Node tree into JSON-compatible values (nil, bool, int64, float64,
// string, map[string]any, []any). When given a Go type it checks the tree against it, so
// that every error names its field and line.
type converter struct {
	strict bool // unknown fields of typed structs are errors
	errs   []convError
	lines  *yamldoc.LineIndex // nil: lines not recorded
	pid    int32              // the path being converted, in lines
	nodes  int
	budget Budget // shared by the documents of one Load; nil: this document alone
	weight int    // of each node against budget
	// tolerate, when set, keeps an unknown field out of the object instead of refusing it
	// (a field the tree's CRD declares and the tools do not know yet); tolerated lists them.
	tolerate  func(path string) bool
	tolerated []convError
	// broken: the document itself is in doubt (a bound crossed, an alias or merge key
	// that does not resolve, a key that is not text), not only some of its fields.
	broken bool
	// intern shares repeated strings between the objects of a Load; nil: none.
	intern *yamldoc.Interner
	// slot is a string the values of string maps are filled into (fillStringMap).
	slot reflect.Value
	// explicit are the omitempty fields fill set to a value the typed object leaves out
	// (noteEmpty); nil for nearly every document.
	explicit []explicitValue
}

func newConverter(strict bool) *converter {
	return &converter{strict: strict, pid: yamldoc.NoPath}
}

func (c *converter) fail(p *field.Path, line int, format string, args ...any) {
	c.errs = append(c.errs, convError{field: pathString(p), line: line, msg: fmt.Sprintf(format, args...)})
}

func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
}

func child(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func key(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Key(name)
}

// convert converts n, checked against t (nil: anything goes). ok is false after an error.
func (c *converter) convert(n *yaml.Node, t reflect.Type, p *field.Path, depth int) (v any, ok bool) {
	if !c.tick(n, p, depth) {
		return nil, false
	}
	n = yamldoc.Resolve(n)
	if n == nil || n.Kind == yaml.AliasNode {
		c.broken = true
		c.fail(p, 0, "unresolvable alias")
		return nil, false
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, true
	}
	return c.convertNode(n, t, p, depth)
}

// convertNode is convert of a resolved node, already counted, that is not null.
func (c *converter) convertNode(n *yaml.Node, t reflect.Type, p *field.Path, depth int) (v any, ok bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return c.untyped(n, p, depth)
	}
	switch t {
	case quantityType:
		return c.quantity(n, p)
	case timeType:
		s, ok := c.scalarString(n, p, "a time (RFC 3339, e.g. 2024-05-01T12:00:00Z)")
		if !ok {
			return nil, false
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			c.fail(p, n.Line, "invalid time %q: expected RFC 3339, e.g. 2024-05-01T12:00:00Z", s)
			return nil, false
		}
		return s, true
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// RawExtension, FieldsV1 and friends hold free-form JSON.
		return c.untyped(n, p, depth)
	}
	switch t.Kind() {
	case reflect.Struct:
		return c.structValue(n, t, p, depth)
	case reflect.Map:
		return c.convertMap(n, t, p, depth)
	case reflect.Slice:
		return c.convertSlice(n, t, p, depth)
	case reflect.String:
		return c.scalarString(n, p, "a string")
	case reflect.Bool:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
			return c.untyped(n, p, depth)
		}
		c.wrongType(n, p, "a boolean (true or false)")
		return nil, false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.integer(n, t, p)
	case reflect.Float32, reflect.Float64:
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
			return c.untyped(n, p, depth)
		}
		c.wrongType(n, p, "a number")
		return nil, false
	case reflect.Interface:
		return c.untyped(n, p, depth)
	}
	return c.untyped(n, p, depth)
}

func (c *converter) convertMap(n *yaml.Node, t reflect.Type, p *field.Path, depth int) (any, bool) {
	if n.Kind != yaml.MappingNode {
		c.wrongType(n, p, "a mapping")
		return nil, false
	}
	out := map[string]any{}
	good := true
	c.eachPair(n, p, depth, func(k string, kn, vn *yaml.Node) {
		kp := key(p, k)
		defer c.leave(c.enter(yamldoc.PathStep{Kind: yamldoc.StepKey, Name: k}, kp, kn.Line))
		if v, ok := c.convert(vn, t.Elem(), kp, depth+1); ok {
			out[k] = v
		} else {
			good = false
		}
	})
	return out, good
}

func (c *converter) convertSlice(n *yaml.Node, t reflect.Type, p *field.Path, depth int) (any, bool) {
	if t.Elem().Kind() == reflect.Uint8 {
		return c.scalarString(n, p, "a base64 string")
	}
	if n.Kind != yaml.SequenceNode {
		c.wrongType(n, p, "a list")
		return nil, false
	}
	out := make([]any, 0, len(n.Content))
	good := true
	for i, item := range n.Content {
		ip := p.Index(i)
		prev := c.enter(yamldoc.PathStep{Kind: yamldoc.StepIndex, Index: i}, ip, item.Line)
		v, ok := c.convert(item, t.Elem(), ip, depth+1)
		c.leave(prev)
		good = good && ok
		out = append(out, v)
	}
	return out, good
}

func (c *converter) structValue(n *yaml.Node, t reflect.Type, p *field.Path, depth int) (any, bool) {
	if n.Kind != yaml.MappingNode {
		c.wrongType(n, p, "a mapping")
		return nil, false
	}
	info := structFields(t)
	quoted := info.quoted
	out := map[string]any{}
	good := true
	c.eachPair(n, p, depth, func(k string, kn, vn *yaml.Node) {
		kp := child(p, k)
		defer c.leave(c.enter(yamldoc.PathStep{Kind: yamldoc.StepChild, Name: k}, kp, kn.Line))
		f, known := info.byName[k]
		if !known {
			if c.strict && c.tolerate != nil && c.tolerate(pathString(kp)) {
				c.tolerated = append(c.tolerated, convError{field: pathString(kp), line: kn.Line})
				if !c.count(vn, kp, depth+1) {
					good = false
				}
			} else if c.strict {
				c.fail(kp, kn.Line, "unknown field%s", Suggest(k, info.names))
				good = false
			} else if !c.count(vn, kp, depth+1) {
				good = false // kept loosely, but bounded all the same
			}
			return
		}
		if quoted[k] {
			if s := yamldoc.Resolve(vn); s != nil && s.Kind == yaml.ScalarNode && s.ShortTag() == "!!str" {
				if i, err := strconv.ParseInt(strings.TrimSpace(s.Value), 10, 32); err == nil {
					out[k] = i
					return
				}
			}
		}
		if v, ok := c.convert(vn, f.typ, kp, depth+1); ok {
			out[k] = v
		} else {
			good = false
		}
	})
	return out, good
}

func (c *converter) untyped(n *yaml.Node, p *field.Path, depth int) (any, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		out := map[string]any{}
		good := true
		c.eachPair(n, p, depth, func(k string, kn, vn *yaml.Node) {
			kp := child(p, k)
			defer c.leave(c.enter(yamldoc.PathStep{Kind: yamldoc.StepChild, Name: k}, kp, kn.Line))
			if v, ok := c.convert(vn, nil, kp, depth+1); ok {
				out[k] = v
			} else {
				good = false
			}
		})
		return out, good
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		good := true
		for i, item := range n.Content {
			ip := p.Index(i)
			prev := c.enter(yamldoc.PathStep{Kind: yamldoc.StepIndex, Index: i}, ip, item.Line)
			v, ok := c.convert(item, nil, ip, depth+1)
			c.leave(prev)
			good = good && ok
			out = append(out, v)
		}
		return out, good
	case yaml.ScalarNode:
		return c.scalar(n, p)
	}
	c.broken = true
	c.fail(p, n.Line, "unsupported YAML node")
	return nil, false
}
