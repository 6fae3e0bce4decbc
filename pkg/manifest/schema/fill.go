package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// fill decodes a node straight into the typed value dst (settable), checking it as convert
// does and recording the same lines and errors: one pass from the node tree to the struct,
// without the JSON document and the second decoder a round trip through encoding/json
// cost (a quarter of a Load's time and most of its garbage). Its result is the struct
// sigs.k8s.io/json would have made of convert's value; TestFillAsJSON holds the two equal.
// Types that decode themselves (Quantity from anything but a string, Time, RawExtension,
// base64 bytes, text unmarshalers) still go through their JSON form, one field at a time.
// ok is false after an error; dst then holds what decoded.
func (c *converter) fill(n *yaml.Node, dst reflect.Value, p *field.Path, depth int) bool {
	return c.fillAs(n, dst, fillPlanOf(dst.Type()), p, depth)
}

// fillAs is fill with the plan of dst's type at hand.
func (c *converter) fillAs(n *yaml.Node, dst reflect.Value, fp *fillPlan, p *field.Path, depth int) bool {
	if !c.tick(n, p, depth) {
		return false
	}
	n = yamldoc.Resolve(n)
	if n == nil || n.Kind == yaml.AliasNode {
		c.broken = true
		c.fail(p, 0, "unresolvable alias")
		return false
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return true // what encoding/json does with null: the zero value stays
	}
	if fp.ptr {
		e := reflect.New(fp.elem)
		if !c.fillValue(n, e.Elem(), fp.kind, p, depth) {
			return false
		}
		dst.Set(e)
		return true
	}
	return c.fillValue(n, dst, fp.kind, p, depth)
}

// fillValue is fill of a resolved node that is not null into a value that is not a
// pointer, of kind fk.
func (c *converter) fillValue(n *yaml.Node, dst reflect.Value, fk fillKind, p *field.Path, depth int) bool {
	switch fk {
	case fkQuantity:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
			q, err := resource.ParseQuantity(strings.TrimSpace(n.Value))
			if err != nil {
				c.fail(p, n.Line, "invalid quantity %q: expected a Kubernetes quantity such as 16Gi, 500m or 4", n.Value)
				return false
			}
			*dst.Addr().Interface().(*resource.Quantity) = q
			return true
		}
		return c.fillJSON(n, dst, p, depth)
	case fkJSON:
		return c.fillJSON(n, dst, p, depth)
	case fkStruct:
		return c.fillStruct(n, dst, p, depth)
	case fkMap:
		return c.fillMap(n, dst, p, depth)
	case fkSlice:
		return c.fillSlice(n, dst, p, depth)
	case fkString:
		s, ok := c.scalarString(n, p, "a string")
		if ok {
			dst.SetString(s)
		}
		return ok
	case fkInt:
		v, ok := c.integer(n, dst.Type(), p)
		if ok {
			dst.SetInt(v.(int64))
		}
		return ok
	case fkUint:
		v, ok := c.integer(n, dst.Type(), p)
		if ok {
			dst.SetUint(uint64(v.(int64)))
		}
		return ok
	}
	t := dst.Type()
	// Booleans, numbers and free-form values: convert's value, as encoding/json stores it.
	v, ok := c.convertNode(n, t, p, depth)
	if !ok {
		return false
	}
	switch x := jsonNumbers(v).(type) {
	case nil:
	case bool:
		dst.SetBool(x)
	case int64:
		if t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 {
			dst.SetFloat(float64(x))
		} else {
			dst.Set(reflect.ValueOf(x))
		}
	case float64:
		if t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 {
			dst.SetFloat(x)
		} else {
			dst.Set(reflect.ValueOf(x))
		}
	default:
		dst.Set(reflect.ValueOf(x))
	}
	return true
}

// jsonNumbers makes a free-form value what a JSON round trip makes of it: a float that is a
// whole number comes back as an integer (sigs.k8s.io/json keeps integers as int64).
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		// encoding/json writes a whole number below 1e21 without a fraction or exponent.
		if x == math.Trunc(x) && math.Abs(x) < 1e21 && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	}
	return v
}

// fillJSON decodes one value through its JSON form, for the types that decode themselves.
func (c *converter) fillJSON(n *yaml.Node, dst reflect.Value, p *field.Path, depth int) bool {
	v, ok := c.convertNode(n, dst.Type(), p, depth)
	if !ok {
		return false
	}
	data, err := json.Marshal(v)
	if err == nil {
		var errs []error
		errs, err = sigsjson.UnmarshalStrict(data, dst.Addr().Interface(), sigsjson.DisallowDuplicateFields)
		if err == nil && len(errs) > 0 {
			err = errs[0]
		}
	}
	if err != nil {
		c.fail(p, n.Line, "%s", strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	return true
}

func (c *converter) fillStruct(n *yaml.Node, dst reflect.Value, p *field.Path, depth int) bool {
	if n.Kind != yaml.MappingNode {
		c.wrongType(n, p, "a mapping")
		return false
	}
	t := dst.Type()
	info := structFields(t)
	quoted := info.quoted
	good := true
	c.eachPair(n, p, depth, func(k string, kn, vn *yaml.Node) {
		kp, prev := c.down(yamldoc.PathStep{Kind: yamldoc.StepChild, Name: k}, p, kn.Line)
		defer c.leave(prev)
		f, known := info.byName[k]
		if !known {
			if !c.unknownField(k, kn, vn, kp, info, depth) {
				good = false
			}
			return
		}
		fv := settableField(dst, f.index)
		if quoted[k] {
			if s := yamldoc.Resolve(vn); s != nil && s.Kind == yaml.ScalarNode && s.ShortTag() == "!!str" {
				if i, err := strconv.ParseInt(strings.TrimSpace(s.Value), 10, 32); err == nil {
					if fv.Kind() == reflect.Pointer {
						fv.Set(reflect.New(fv.Type().Elem()))
						fv = fv.Elem()
					}
					fv.SetInt(i)
					return
				}
			}
		}
		if !c.fillAs(vn, fv, f.fill, kp, depth+1) {
			good = false
		} else if f.omitEmpty {
			c.noteEmpty(vn, fv, kp)
		}
	})
	return good
}

// unknownField handles a field a struct does not have: tolerated, refused (strict kinds)
// or kept out of the object but counted against the bounds; false after an error.
func (c *converter) unknownField(k string, kn, vn *yaml.Node, kp *field.Path, info *structInfo, depth int) bool {
	switch {
	case c.strict && c.tolerate != nil && c.tolerate(pathString(kp)):
		c.tolerated = append(c.tolerated, convError{field: pathString(kp), line: kn.Line})
		return c.count(vn, kp, depth+1)
	case c.strict:
		c.fail(kp, kn.Line, "unknown field%s", Suggest(k, info.names))
		return false
	}
	return c.count(vn, kp, depth+1) // kept loosely, but bounded all the same
}

// settableField is v.FieldByIndex, allocating embedded struct pointers on the way.
func settableField(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

func (c *converter) fillMap(n *yaml.Node, dst reflect.Value, p *field.Path, depth int) bool {
	if n.Kind != yaml.MappingNode {
		c.wrongType(n, p, "a mapping")
		return false
	}
	t := dst.Type()
	if t == stringMapType {
		return c.fillStringMap(n, dst, p, depth)
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	efp := fillPlanOf(t.Elem())
	good := true
	c.eachPair(n, p, depth, func(k string, kn, vn *yaml.Node) {
		kp, prev := c.down(yamldoc.PathStep{Kind: yamldoc.StepKey, Name: k}, p, kn.Line)
		defer c.leave(prev)
		e := reflect.New(t.Elem()).Elem()
		if c.fillAs(vn, e, efp, kp, depth+1) {
			m.SetMapIndex(reflect.ValueOf(c.intern.Str(k)).Convert(t.Key()), e)
		} else {
			good = false
		}
	})
	dst.Set(m)
	return good
}

var stringMapType = reflect.TypeOf(map[string]string(nil))

// fillStringMap is fillMap of a map[string]string (labels, annotations): filled as a Go
// map, each value through one string of the converter, without a reflect.Value (and its
// allocations) per entry.
func (c *converter) fillStringMap(n *yaml.Node, dst reflect.Value, p *field.Path, depth int) bool {
	m := make(map[string]string, len(n.Content)/2)
	if !c.slot.IsValid() {
		c.slot = reflect.ValueOf(new(string)).Elem()
	}
	good := true
	c.eachPair(n, p, depth, func(k string, kn, vn *yaml.Node) {
		kp, prev := c.down(yamldoc.PathStep{Kind: yamldoc.StepKey, Name: k}, p, kn.Line)
		defer c.leave(prev)
		c.slot.SetString("")
		if c.fillAs(vn, c.slot, stringPlan, kp, depth+1) {
			m[c.intern.Str(k)] = c.slot.String()
		} else {
			good = false
		}
	})
	dst.Set(reflect.ValueOf(m))
	return good
}

func (c *converter) fillSlice(n *yaml.Node, dst reflect.Value, p *field.Path, depth int) bool {
	if n.Kind != yaml.SequenceNode {
		c.wrongType(n, p, "a list")
		return false
	}
	s := reflect.MakeSlice(dst.Type(), len(n.Content), len(n.Content))
	efp := fillPlanOf(dst.Type().Elem())
	good := true
	for i, item := range n.Content {
		ip, prev := c.down(yamldoc.PathStep{Kind: yamldoc.StepIndex, Index: i}, p, item.Line)
		if !c.fillAs(item, s.Index(i), efp, ip, depth+1) {
			good = false
		}
		c.leave(prev)
	}
	dst.Set(s)
	return good
}
