package schema

import (
	"math"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// The values of the typed schema walk (typedwalk.go), read out of the Go value.

// jv is one JSON value of a typed object (see above).
type jv struct {
	k  jkind // jString, jInt, jBool, jStruct, jMap, jSlice; jOther: a holds the JSON value
	s  string
	i  int64
	b  bool
	rv reflect.Value // jStruct, jMap, jSlice
	p  *tplan        // jStruct, jMap, jSlice
	a  any           // jOther
	// root: the object itself, whose apiVersion and kind typedJSONValue fills in.
	root bool
}

func anyJV(a any) jv { return jv{k: jOther, a: a} }

// jvOf is the value rv (of plan p) renders to; ok is false where typedJSONValue leaves it
// out or writes null, which the schema walk passes over alike.
func (w *walk) jvOf(rv reflect.Value, p *tplan) (jv, bool) {
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return jv{}, false
		}
		rv = rv.Elem()
	}
	switch p.kind {
	case jStruct:
		return jv{k: jStruct, rv: rv, p: p}, true
	case jMap, jSlice:
		if rv.IsNil() {
			return jv{}, false
		}
		return jv{k: p.kind, rv: rv, p: p}, true
	case jString:
		return jv{k: jString, s: rv.String()}, true
	case jInt:
		return jv{k: jInt, i: rv.Int()}, true
	case jUint:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return jv{k: jInt, i: int64(u)}, true
		}
		return anyJV(float64(rv.Uint())), true
	case jBool:
		return jv{k: jBool, b: rv.Bool()}, true
	case jQuantity:
		// String caches its text in the quantity: asked of a copy, the object stays as
		// it was read.
		var q resource.Quantity
		if rv.CanAddr() {
			q = *rv.Addr().Interface().(*resource.Quantity)
		} else {
			q = rv.Interface().(resource.Quantity)
		}
		return jv{k: jString, s: q.String()}, true
	}
	x, present := w.render(rv)
	if !present || x == nil {
		return jv{}, false
	}
	return anyJV(x), true
}

// render is typedJSONValue's value of rv; a failure (which the check before the walk
// rules out) stops the walk and sends the object the long way.
func (w *walk) render(rv reflect.Value) (any, bool) {
	c := newConverter(false)
	x, present, err := c.value(rv, false, 0)
	if err != nil || len(c.errs) > 0 {
		w.failed = true
		return nil, false
	}
	return x, present
}

// any is the value as typedJSONValue has it, for a finding's message.
func (w *walk) any(x jv) any {
	switch x.k {
	case jString:
		return x.s
	case jInt:
		return x.i
	case jBool:
		return x.b
	case jOther:
		return x.a
	}
	if x.root {
		v, _ := typedJSONValue(w.obj)
		return v
	}
	v, _ := w.render(x.rv)
	return v
}

// field is the value of a struct's field f; ok is false where structJSON leaves it out.
func (w *walk) field(x jv, f *tfield) (jv, bool) {
	v, present := jv{}, false
	fv, ok := fieldByIndex(x.rv, f.index)
	if ok && !(f.omitEmpty && (isEmptyValue(fv) || (fv.Kind() == reflect.Struct && fv.IsZero()))) {
		v, present = w.jvOf(fv, f.plan)
	}
	if x.root && (!present || (v.k == jString && v.s == "")) {
		switch f.name {
		case "apiVersion":
			return jv{k: jString, s: w.ki.gvk.GroupVersion().String()}, true
		case "kind":
			return jv{k: jString, s: w.ki.gvk.Kind}, true
		}
	}
	return v, present
}

// member is the value of an object's property name.
func (w *walk) member(x jv, name string) (jv, bool) {
	switch x.k {
	case jStruct:
		i, ok := x.p.byName[name]
		if !ok {
			return jv{}, false
		}
		return w.field(x, &x.p.fields[i])
	case jMap:
		k := reflect.ValueOf(name).Convert(x.rv.Type().Key())
		e := x.rv.MapIndex(k)
		if !e.IsValid() {
			return jv{}, false
		}
		return w.jvOf(e, x.p.elem)
	}
	return jv{}, false
}

// entry is one property of an object, in the walk.
type entry struct {
	name string
	v    jv
}

// members calls fn for the properties of an object in name order.
func (w *walk) members(x jv, fn func(name string, v jv)) {
	switch x.k {
	case jStruct:
		for i := range x.p.fields {
			f := &x.p.fields[i]
			if v, ok := w.field(x, f); ok {
				fn(f.name, v)
			}
		}
	case jMap:
		if m, ok := x.rv.Interface().(map[string]string); ok && x.p.elem.kind == jString {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fn(k, jv{k: jString, s: m[k]})
			}
			return
		}
		es := make([]entry, 0, x.rv.Len())
		it := x.rv.MapRange()
		for it.Next() {
			if v, ok := w.jvOf(it.Value(), x.p.elem); ok {
				es = append(es, entry{name: it.Key().String(), v: v})
			}
		}
		sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
		for _, e := range es {
			fn(e.name, e.v)
		}
	}
}

// IsZero is IsZero of the value.
func (w *walk) isZero(x jv) bool {
	switch x.k {
	case jString:
		return x.s == ""
	case jInt:
		return x.i == 0
	case jBool:
		return !x.b
	case jSlice:
		return x.rv.Len() == 0
	case jStruct, jMap:
		zero := true
		w.members(x, func(_ string, v jv) {
			if zero && !w.isZero(v) {
				zero = false
			}
		})
		return zero
	}
	return IsZero(x.a)
}

// walk is the state of one object's typed schema walk.
type walk struct {
	ki     *Kind
	obj    runtime.Object
	failed bool
	// rootDropped lists the top-level properties reported missing (required), which the
	// JSON walk deletes from the object before reading its metadata.
	rootDropped []string
}

// renders reports whether every part of rv that renders itself renders, as
// typedJSONValue (which stops at the first that does not) needs; one converter counts
// all of them against its bound, as there.
func (w *walk) renders(rv reflect.Value, p *tplan, c *converter, depth int, keepNull bool) bool {
	if !p.hasOther {
		return true
	}
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return true
		}
		rv = rv.Elem()
	}
	switch p.kind {
	case jStruct:
		for i := range p.fields {
			f := &p.fields[i]
			fv, ok := fieldByIndex(rv, f.index)
			if !ok || (f.omitEmpty && (isEmptyValue(fv) || (fv.Kind() == reflect.Struct && fv.IsZero()))) {
				continue
			}
			if !w.renders(fv, f.plan, c, depth+1, false) {
				return false
			}
		}
	case jMap:
		it := rv.MapRange()
		for it.Next() {
			if !w.renders(it.Value(), p.elem, c, depth+1, keepNull) {
				return false
			}
		}
	case jSlice:
		for i := 0; i < rv.Len(); i++ {
			if !w.renders(rv.Index(i), p.elem, c, depth+1, true) {
				return false
			}
		}
	case jOther:
		_, _, err := c.value(rv, keepNull, depth) // as value asks: list items keep null
		return err == nil && len(c.errs) == 0
	}
	return true
}

// newWalk prepares the typed walk of obj, a typed object of kind ki; nil when some part
// of it does not render, for which the JSON value's own error is the finding.
func (v *validator) newWalk(ki *Kind, obj runtime.Object) (*walk, jv) {
	rv := reflect.ValueOf(obj)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil, jv{}
	}
	v.walk = walk{ki: ki, obj: obj}
	w := &v.walk
	p := planOf(rv.Elem().Type())
	if p.kind != jStruct || !w.renders(rv.Elem(), p, newConverter(false), 0, false) {
		return nil, jv{}
	}
	return w, jv{k: jStruct, rv: rv.Elem(), p: p, root: true}
}
