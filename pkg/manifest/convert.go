package manifest

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/editdist"
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
const maxDepth = 256

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
	lines  *lineIndex // nil: lines not recorded
	pid    int32      // the path being converted, in lines
	nodes  int
	budget *budget // shared by the documents of one Load; nil: this document alone
	weight int     // of each node against budget: typedWeight or looseWeight
	// tolerate, when set, keeps an unknown field out of the object instead of refusing it
	// (a field the tree's CRD declares and the tools do not know yet); tolerated lists them.
	tolerate  func(path string) bool
	tolerated []convError
	// broken: the document itself is in doubt (a bound crossed, an alias or merge key
	// that does not resolve, a key that is not text), not only some of its fields.
	broken bool
	// intern shares repeated strings between the objects of a Load; nil: none.
	intern *interner
	// slot is a string the values of string maps are filled into (fillStringMap).
	slot reflect.Value
	// explicit are the omitempty fields fill set to a value the typed object leaves out
	// (noteEmpty); nil for nearly every document.
	explicit []explicitValue
}

func newConverter(strict bool) *converter {
	return &converter{strict: strict, pid: yamldoc.NoPath, weight: looseWeight}
}

// notJudged lists the fields tolerate kept out, where file writes them.
func (c *converter) notJudged(file string) []FieldOrigin {
	var out []FieldOrigin
	for _, t := range c.tolerated {
		out = append(out, FieldOrigin{Field: t.field, File: file, Line: t.line})
	}
	return out
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
				c.fail(kp, kn.Line, "unknown field%s", suggest(k, info.names))
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

// eachPair walks the pairs of a mapping, expanding merge keys ("<<") and refusing
// duplicate and non-scalar keys.
func (c *converter) eachPair(n *yaml.Node, p *field.Path, depth int, fn func(k string, kn, vn *yaml.Node)) {
	c.pairs(n, p, depth, fn, nil)
}

// pairs is eachPair of a mapping whose pairs pass through filter (nil: all pass): fn is
// only ever called, never kept, so that the callers' closures stay on their stacks.
func (c *converter) pairs(n *yaml.Node, p *field.Path, depth int, fn func(k string, kn, vn *yaml.Node), filter *mergeFilter) {
	var seen keySet
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		// Keys count too: merge keys ("<<") walk the same mappings again and again.
		if !c.tick(n.Content[i], p, depth) {
			return
		}
		kn, vn := yamldoc.Resolve(n.Content[i]), n.Content[i+1]
		if kn == nil || kn.Kind != yaml.ScalarNode {
			c.broken = true
			c.fail(p, n.Content[i].Line, "mapping keys must be strings")
			continue
		}
		if kn.ShortTag() == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		if kn.ShortTag() == "!!null" {
			c.broken = true
			c.fail(p, kn.Line, "mapping keys must be strings, got null")
			continue
		}
		k := kn.Value
		if first, dup := seen.get(k); dup {
			c.fail(child(p, k), kn.Line, "duplicate field (first set on line %d)", first)
			continue
		}
		seen.set(k, kn.Line)
		if filter.pass(k) {
			fn(k, kn, vn)
		}
	}
	if len(merges) > 0 {
		c.mergePairs(n, p, depth, merges, seen, fn, filter)
	}
}

// mergeFilter passes on, of the pairs a merge key brings in, those that neither the
// mapping itself nor an earlier source set; outer is the filter of the mapping itself,
// when it is a merge source too.
type mergeFilter struct {
	seen  *keySet
	sub   map[string]bool
	outer *mergeFilter
}

// pass reports whether the key k passes every filter, innermost first, each marking it
// as set as it passes.
func (f *mergeFilter) pass(k string) bool {
	for ; f != nil; f = f.outer {
		if _, explicit := f.seen.get(k); explicit || f.sub[k] {
			return false
		}
		f.sub[k] = true
	}
	return true
}

// mergePairs walks the mappings merge keys ("<<") refer to, after the explicit pairs;
// seen is a copy of the explicit keys (so that pairs' own stays on its stack).
func (c *converter) mergePairs(n *yaml.Node, p *field.Path, depth int, merges []*yaml.Node, seen keySet, fn func(k string, kn, vn *yaml.Node), outer *mergeFilter) {
	// Merged keys come after explicit ones and never override them.
	for _, m := range merges {
		m = yamldoc.Resolve(m)
		var sources []*yaml.Node
		switch {
		case m != nil && m.Kind == yaml.MappingNode:
			sources = []*yaml.Node{m}
		case m != nil && m.Kind == yaml.SequenceNode:
			for _, s := range m.Content {
				sources = append(sources, yamldoc.Resolve(s))
			}
		default:
			sources = []*yaml.Node{m} // refused below, not ignored
		}
		for _, s := range sources {
			if s == nil || s.Kind != yaml.MappingNode {
				c.broken = true
				c.fail(p, n.Line, "merge key \"<<\" must refer to mappings")
				return
			}
			if depth > maxDepth {
				c.broken = true
				c.fail(p, n.Line, "nested more than %d levels deep", maxDepth)
				return
			}
			f := &mergeFilter{seen: &seen, sub: map[string]bool{}, outer: outer}
			c.pairs(s, p, depth+1, fn, f)
			for k := range f.sub {
				seen.set(k, 0)
			}
		}
	}
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
	c.fail(p, n.Line, "expected %s, got %s%s", want, describe(n), hint)
}

func describe(n *yaml.Node) string {
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

// suggest returns ` (did you mean "x"?)` for a near miss.
func suggest(k string, names []string) string {
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

// fieldInfo is one JSON field of a struct.
type fieldInfo struct {
	name      string
	index     []int
	typ       reflect.Type
	omitEmpty bool
	fill      *fillPlan // of typ
}

type structInfo struct {
	fields []fieldInfo // in declaration order, embedded structs flattened
	byName map[string]fieldInfo
	names  []string
	quoted map[string]bool // quotedIntFields of the type
}

var structCache sync.Map // reflect.Type -> *structInfo

// structFields lists the JSON fields of a struct type as encoding/json sees them.
func structFields(t reflect.Type) *structInfo {
	if v, ok := structCache.Load(t); ok {
		return v.(*structInfo)
	}
	info := &structInfo{byName: map[string]fieldInfo{}, quoted: quotedIntFields[t]}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int{}, index...), i)
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, idx)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fi := fieldInfo{name: name, index: idx, typ: f.Type, omitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
				fill: fillPlanOf(f.Type)}
			if _, dup := info.byName[name]; dup {
				continue
			}
			info.fields = append(info.fields, fi)
			info.byName[name] = fi
			info.names = append(info.names, name)
		}
	}
	walk(t, nil)
	sort.Strings(info.names)
	structCache.Store(t, info)
	return info
}
