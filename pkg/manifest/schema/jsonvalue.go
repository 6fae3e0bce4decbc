package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// typedJSONValue is toJSONValue of a typed object without the node tree in between: the
// value ObjectNode renders and the untyped converter reads back, built directly. The
// schema walk reads typed objects where they are (typedwalk.go) and asks this only for
// the values that render themselves, for findings, and for objects it does not read.
// TestTypedJSONValueAsRendered holds the two ways equal.
func typedJSONValue(obj runtime.Object) (any, error) {
	if _, ok := obj.(*unstructured.Unstructured); ok || obj == nil {
		return nil, errNotTyped
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("cannot render %T", obj)
	}
	c := newConverter(false)
	val, _, err := c.value(v.Elem(), false, 0)
	if err != nil {
		return nil, err
	}
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("cannot convert %T: %s", obj, c.errs[0].msg)
	}
	m, _ := val.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	if ki := KindOf(obj); ki != nil {
		for k, s := range map[string]string{"apiVersion": ki.gvk.GroupVersion().String(), "kind": ki.gvk.Kind} {
			if cur, _ := m[k].(string); cur == "" {
				m[k] = s
			}
		}
	} else if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind == "" || gvk.Version == "" {
		return nil, fmt.Errorf("%T has no apiVersion and kind set", obj)
	}
	return m, nil
}

var errNotTyped = fmt.Errorf("not a typed object")

// value is valueNode followed by untyped; present is false where valueNode leaves the
// field out.
func (c *converter) value(v reflect.Value, keepNull bool, depth int) (val any, present bool, err error) {
	if !v.IsValid() {
		return nil, keepNull, nil
	}
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, keepNull, nil
		}
		return c.value(v.Elem(), keepNull, depth)
	}
	t := v.Type()
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		p := reflect.New(t)
		p.Elem().Set(v)
		data, err := p.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, false, err
		}
		return c.jsonValue(data, keepNull, depth)
	}
	switch v.Kind() {
	case reflect.Struct:
		out, err := c.structJSON(v, depth)
		return out, err == nil, err
	case reflect.Map:
		if v.IsNil() {
			return nil, keepNull, nil
		}
		out := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			x, present, err := c.value(iter.Value(), keepNull, depth+1)
			if err != nil {
				return nil, false, err
			}
			if present {
				out[mapKeyString(iter.Key())] = x
			}
		}
		return out, true, nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil, keepNull, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			data, _ := json.Marshal(v.Interface())
			return c.jsonValue(data, true, depth)
		}
		out := make([]any, 0, v.Len())
		for i := 0; i < v.Len(); i++ {
			x, _, err := c.value(v.Index(i), true, depth+1)
			if err != nil {
				return nil, false, err
			}
			out = append(out, x)
		}
		return out, true, nil
	case reflect.Float32, reflect.Float64:
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, false, err
		}
		return c.jsonValue(data, keepNull, depth)
	}
	if x, ok := scalarValue(v); ok {
		return x, true, nil
	}
	return nil, false, fmt.Errorf("cannot render %s", t)
}

// structJSON is value for a struct: its fields as valueNode writes them.
func (c *converter) structJSON(v reflect.Value, depth int) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range structFields(v.Type()).fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok || (f.omitEmpty && (isEmptyValue(fv) || (fv.Kind() == reflect.Struct && fv.IsZero()))) {
			continue
		}
		x, present, err := c.value(fv, false, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		if present {
			out[f.name] = x
		}
	}
	return out, nil
}

// scalarValue is value for strings, booleans and integers.
func scalarValue(v reflect.Value) (any, bool) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if u := v.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
		return float64(v.Uint()), true
	}
	return nil, false
}

// jsonValue reads back what a MarshalJSON wrote, as valueNode's jsonNode and untyped do.
func (c *converter) jsonValue(data []byte, keepNull bool, depth int) (any, bool, error) {
	if s, ok := plainJSONString(data); ok {
		return s, true, nil
	}
	n, err := jsonNode(data)
	if err != nil || n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && !keepNull) {
		return nil, false, err
	}
	x, _ := c.convert(n, nil, nil, depth)
	return x, true, nil
}
