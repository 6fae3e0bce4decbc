package schema

import (
	"encoding"
	"reflect"
	"sync"
)

// How fill decodes each Go type, decided once per type.

var textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()

// fillKind is how fillValue fills a type.
type fillKind uint8

const (
	fkOther    fillKind = iota // booleans, numbers, free-form values: convert's value
	fkQuantity                 // text parsed as a quantity, anything else through JSON
	fkJSON                     // through its JSON form (fillJSON)
	fkStruct
	fkMap
	fkSlice
	fkString
	fkInt
	fkUint
)

// fillPlan is what fill needs to know of a type, found once per type (the reflect
// questions it asks cost more than the filling).
type fillPlan struct {
	ptr  bool         // a pointer: filled is a new elem
	elem reflect.Type // ptr: the type pointed to
	kind fillKind     // of the type (of elem when ptr)
}

var (
	fillPlans  sync.Map // reflect.Type -> *fillPlan
	stringPlan = fillPlanOf(reflect.TypeOf(""))
)

func fillPlanOf(t reflect.Type) *fillPlan {
	if fp, ok := fillPlans.Load(t); ok {
		return fp.(*fillPlan)
	}
	fp := &fillPlan{}
	vt := t
	if t.Kind() == reflect.Pointer {
		fp.ptr, fp.elem, vt = true, t.Elem(), t.Elem()
	}
	fp.kind = fillKindOf(vt)
	v, _ := fillPlans.LoadOrStore(t, fp)
	return v.(*fillPlan)
}

// fillKindOf decides how fillValue fills a value of type t (not a pointer, or a pointer
// to a pointer's elem).
func fillKindOf(t reflect.Type) fillKind {
	switch {
	case t == quantityType:
		return fkQuantity
	case t == timeType || reflect.PointerTo(t).Implements(unmarshalerType) ||
		reflect.PointerTo(t).Implements(textUnmarshalerType) || t.Kind() == reflect.Pointer ||
		t.Kind() == reflect.Array:
		return fkJSON
	}
	switch t.Kind() {
	case reflect.Struct:
		return fkStruct
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fkJSON
		}
		return fkMap
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return fkJSON
		}
		return fkSlice
	case reflect.String:
		return fkString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fkInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fkUint
	}
	return fkOther
}
