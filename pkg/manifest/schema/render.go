package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

var marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// ObjectNode renders an object as a node tree: struct fields in declaration order,
// apiVersion, kind, metadata and spec first, and none of the noise encoding/json writes
// for unset fields (status: {}, creationTimestamp: null, empty structs, nil pointers).
// It also returns the Go type the tree was checked against (nil for unstructured).
func ObjectNode(obj runtime.Object) (*yaml.Node, reflect.Type, error) {
	if obj == nil {
		return nil, nil, fmt.Errorf("no object")
	}
	var n *yaml.Node
	var t reflect.Type
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		var err error
		if n, err = valueNode(reflect.ValueOf(o.Object), true); err != nil {
			return nil, nil, err
		}
	default:
		v := reflect.ValueOf(obj)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return nil, nil, fmt.Errorf("cannot render %T", obj)
		}
		t = v.Elem().Type()
		var err error
		if n, err = valueNode(v.Elem(), false); err != nil {
			return nil, nil, err
		}
		if n == nil {
			n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		// Objects built in code often leave TypeMeta empty.
		if ki := KindOf(obj); ki != nil {
			setKey(n, "apiVersion", ki.gvk.GroupVersion().String(), true)
			setKey(n, "kind", ki.gvk.Kind, true)
		} else if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind == "" || gvk.Version == "" {
			return nil, nil, fmt.Errorf("%T has no apiVersion and kind set", obj)
		}
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("object does not render as a mapping")
	}
	reorderTop(n)
	return n, t, nil
}

// setKey sets a string key of a mapping, adding it if missing (onlyIfEmpty: keep a
// non-empty value).
func setKey(n *yaml.Node, k, v string, onlyIfEmpty bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			if !onlyIfEmpty || n.Content[i+1].Value == "" {
				n.Content[i+1] = strNode(v)
			}
			return
		}
	}
	n.Content = append(n.Content, strNode(k), strNode(v))
}

func reorderTop(n *yaml.Node) {
	rank := map[string]int{"apiVersion": 0, "kind": 1, "metadata": 2, "spec": 3}
	type pair struct{ k, v *yaml.Node }
	pairs := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		pairs = append(pairs, pair{n.Content[i], n.Content[i+1]})
	}
	r := func(p pair) int {
		if x, ok := rank[p.k.Value]; ok {
			return x
		}
		return len(rank)
	}
	sort.SliceStable(pairs, func(i, j int) bool { return r(pairs[i]) < r(pairs[j]) })
	n.Content = n.Content[:0]
	for _, p := range pairs {
		n.Content = append(n.Content, p.k, p.v)
	}
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// valueNode renders a Go value; nil means "leave the field out". keepNull keeps explicit
// nulls (unstructured data, where null is a value of its own).
func valueNode(v reflect.Value, keepNull bool) (*yaml.Node, error) {
	if !v.IsValid() {
		if keepNull {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		return nil, nil
	}
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return valueNode(reflect.Value{}, keepNull)
		}
		return valueNode(v.Elem(), keepNull)
	}
	t := v.Type()
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		p := reflect.New(t)
		p.Elem().Set(v)
		data, err := p.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, err
		}
		n, err := jsonNode(data)
		if err != nil || n == nil || (n.ShortTag() == "!!null" && !keepNull) {
			return nil, err
		}
		return n, nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return structNode(v)
	case reflect.Map:
		if v.IsNil() {
			return valueNode(reflect.Value{}, keepNull)
		}
		return mapNode(v, keepNull)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return valueNode(reflect.Value{}, keepNull)
		}
		if t.Elem().Kind() == reflect.Uint8 {
			data, _ := json.Marshal(v.Interface())
			return jsonNode(data)
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := 0; i < v.Len(); i++ {
			c, err := valueNode(v.Index(i), true)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case reflect.String:
		return strNode(v.String()), nil
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, err
		}
		return jsonNode(data)
	}
	return nil, fmt.Errorf("cannot render %s", t)
}

// structNode renders a struct's fields in declaration order, leaving out the omitempty
// ones that are empty, as encoding/json does, and zero structs too.
func structNode(v reflect.Value) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, f := range structFields(v.Type()).fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok || (f.omitEmpty && (isEmptyValue(fv) || (fv.Kind() == reflect.Struct && fv.IsZero()))) {
			continue
		}
		c, err := valueNode(fv, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		if c == nil {
			continue
		}
		n.Content = append(n.Content, strNode(f.name), c)
	}
	return n, nil
}

// mapNode renders a map with its keys sorted, as encoding/json does.
func mapNode(v reflect.Value, keepNull bool) (*yaml.Node, error) {
	keys := v.MapKeys()
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = mapKeyString(k)
	}
	sort.Sort(byName{keys, names})
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i, k := range keys {
		c, err := valueNode(v.MapIndex(k), keepNull)
		if err != nil {
			return nil, err
		}
		if c == nil {
			continue
		}
		n.Content = append(n.Content, strNode(names[i]), c)
	}
	return n, nil
}

func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// jsonNode parses JSON into nodes, keeping key order, with styles and positions cleared.
func jsonNode(data []byte) (*yaml.Node, error) {
	if s, ok := plainJSONString(data); ok {
		// Quantities and times: what the parse below gives, for a fraction of its cost.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	n := doc.Content[0]
	var clear func(*yaml.Node)
	clear = func(n *yaml.Node) {
		n.Style, n.Line, n.Column = 0, 0, 0
		n.Tag = n.ShortTag()
		for _, c := range n.Content {
			clear(c)
		}
	}
	clear(n)
	return n, nil
}

// plainJSONString returns the text of a JSON string of printable ASCII with nothing
// escaped in it, which reads the same as YAML.
func plainJSONString(data []byte) (string, bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return "", false
	}
	for _, b := range data[1 : len(data)-1] {
		if b == '\\' || b == '"' || b < 0x20 || b >= 0x7f {
			return "", false
		}
	}
	return string(data[1 : len(data)-1]), true
}

// mapKeyString renders a map key as fmt.Sprint does, without its cost for strings.
func mapKeyString(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	return fmt.Sprint(k.Interface())
}

// byName sorts map keys by their rendered names.
type byName struct {
	keys  []reflect.Value
	names []string
}

func (b byName) Len() int           { return len(b.keys) }
func (b byName) Less(i, j int) bool { return b.names[i] < b.names[j] }
func (b byName) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.names[i], b.names[j] = b.names[j], b.names[i]
}
