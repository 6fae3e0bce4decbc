package manifest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The schema walk reads a typed object where it is, instead of the JSON value tree
// typedJSONValue would make of it (a map per struct, a boxed value per field: most of
// validation's time and garbage). A jv is one value of that tree, seen through the Go
// value: scalars are read out (a quantity as its text), objects and arrays stay Go values,
// and what renders itself (times, raw JSON, floats, bytes) is rendered, as typedJSONValue
// does, and walked as JSON. TestTypedWalkAsJSON holds the findings of both walks equal.

// jkind is what a Go type is in JSON.
type jkind uint8

const (
	jOther  jkind = iota // rendered through its JSON form (typedJSONValue's value)
	jStruct              // an object, its fields as structJSON writes them
	jMap                 // an object with string keys
	jSlice               // an array
	jString
	jInt
	jUint
	jBool
	jQuantity // a resource.Quantity: its canonical string, what its MarshalJSON writes
)

// tplan is how the walk reads a Go type (pointers stripped), computed once per type.
type tplan struct {
	kind     jkind
	fields   []tfield       // jStruct: its JSON fields, sorted by name
	byName   map[string]int // jStruct: index into fields
	elem     *tplan         // jMap, jSlice: of the element type
	hasOther bool           // a jOther value may be reached from this one
}

type tfield struct {
	name      string
	index     []int
	omitEmpty bool
	plan      *tplan
}

var (
	planMu sync.Mutex
	plans  sync.Map // reflect.Type -> *tplan
)

// planOf returns the plan of t.
func planOf(t reflect.Type) *tplan {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := plans.Load(t); ok {
		return p.(*tplan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	building := map[reflect.Type]*tplan{}
	p := buildPlan(t, building)
	for _, bp := range building {
		bp.hasOther = reachesOther(bp, map[*tplan]bool{})
	}
	for bt, bp := range building {
		plans.LoadOrStore(bt, bp)
	}
	got, _ := plans.Load(t)
	if got == nil {
		return p
	}
	return got.(*tplan)
}

func buildPlan(t reflect.Type, building map[reflect.Type]*tplan) *tplan {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := plans.Load(t); ok {
		return p.(*tplan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &tplan{}
	building[t] = p
	if t == quantityType {
		p.kind = jQuantity
		return p
	}
	// As value: a type that marshals itself is rendered, whatever its kind.
	if t.Kind() == reflect.Interface || t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return p
	}
	switch t.Kind() {
	case reflect.Struct:
		p.kind = jStruct
		fs := structFields(t).fields
		p.fields = make([]tfield, 0, len(fs))
		for _, f := range fs {
			p.fields = append(p.fields, tfield{name: f.name, index: f.index, omitEmpty: f.omitEmpty, plan: buildPlan(f.typ, building)})
		}
		sort.SliceStable(p.fields, func(i, j int) bool { return p.fields[i].name < p.fields[j].name })
		p.byName = make(map[string]int, len(p.fields))
		for i, f := range p.fields {
			p.byName[f.name] = i
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			p.kind, p.elem = jMap, buildPlan(t.Elem(), building)
		}
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			p.kind, p.elem = jSlice, buildPlan(t.Elem(), building)
		}
	case reflect.String:
		p.kind = jString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = jInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.kind = jUint
	case reflect.Bool:
		p.kind = jBool
	}
	return p
}

func reachesOther(p *tplan, seen map[*tplan]bool) bool {
	if seen[p] {
		return false
	}
	seen[p] = true
	switch p.kind {
	case jOther:
		return true
	case jStruct:
		for _, f := range p.fields {
			if reachesOther(f.plan, seen) {
				return true
			}
		}
	case jMap, jSlice:
		return reachesOther(p.elem, seen)
	}
	return false
}

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

// isZero is isZero of the value.
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
	return isZero(x.a)
}

// walk is the state of one object's typed schema walk.
type walk struct {
	ki     *kindInfo
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
func (v *validator) newWalk(ki *kindInfo, obj runtime.Object) (*walk, jv) {
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

// box is the value as the JSON walk has it, for a finding.
func (v *validator) box(x jv) any {
	if x.k == jOther {
		return x.a
	}
	return v.w.any(x)
}

// validateV is validate of a value of the typed walk; each step mirrors validate's.
func (v *validator) validateV(s *jsonSchema, x jv) {
	if s == nil {
		return
	}
	if x.k == jOther {
		v.validate(s, x.a)
		return
	}
	if (x.k == jStruct || x.k == jMap || x.k == jSlice) && !x.root &&
		(len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.XListType == "map" || s.XListType == "set") {
		// What the JSON walk does here reads the object as it changes it (a property
		// reported missing is deleted, then the next form or the list's keys see it
		// gone): walked as JSON, the same way.
		v.validate(s, v.box(x))
		return
	}
	if (x.k == jStruct || x.k == jMap || x.k == jSlice) && bindingOf(s, x.p).trivial {
		return
	}
	for _, sub := range s.AllOf {
		v.validateV(sub, x)
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		subs := s.AnyOf
		if len(subs) == 0 {
			subs = s.OneOf
		}
		matched := 0
		var buf [4]string
		types := buf[:0]
		for _, sub := range subs {
			if sub.Type != "" && !typeMatchesV(sub, x) {
				types = append(types, sub.Type)
				continue
			}
			// A trial on v itself, its findings dropped after: the walk changes nothing
			// else that outlives it.
			before := len(v.errs)
			v.validateV(sub, x)
			if len(v.errs) == before {
				matched++
			}
			v.errs = v.errs[:before]
			if sub.Type != "" {
				types = append(types, sub.Type)
			}
		}
		if matched == 0 || (len(s.OneOf) > 0 && matched > 1) {
			detail := "does not match the allowed forms"
			if len(types) == len(subs) {
				detail = "must be of type " + strings.Join(types, " or ")
			}
			v.errs = append(v.errs, field.Invalid(v.path(), v.box(x), detail))
			return
		}
	}
	if !typeMatchesV(s, x) {
		v.errs = append(v.errs, field.Invalid(v.path(), v.box(x), "must be of type "+s.Type))
		return
	}
	if len(s.Enum) > 0 && !v.inEnumV(s.Enum, x) {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprint(e)
		}
		v.errs = append(v.errs, field.NotSupported(v.path(), v.box(x), vals))
	}
	switch x.k {
	case jString:
		v.str(s, x.s)
	case jInt:
		v.number(s, float64(x.i), x)
	case jStruct, jMap:
		v.objectV(s, x)
	case jSlice:
		v.arrayV(s, x)
	}
}

// typeMatchesV is typeMatches of a value of the typed walk.
func typeMatchesV(s *jsonSchema, x jv) bool {
	if x.k == jOther {
		return typeMatches(s, x.a)
	}
	switch s.Type {
	case "string":
		return x.k == jString || (s.XIntOrString && x.k == jInt)
	case "integer", "number":
		return x.k == jInt
	case "boolean":
		return x.k == jBool
	case "object":
		return x.k == jStruct || x.k == jMap
	case "array":
		return x.k == jSlice
	}
	return true
}

// inEnumV is inEnum of a value of the typed walk.
func (v *validator) inEnumV(enum []any, x jv) bool {
	if x.k == jString {
		for _, e := range enum {
			if es, ok := e.(string); ok && es == x.s {
				return true
			}
		}
		return false
	}
	return inEnum(enum, v.box(x))
}

// objectV is object of a value of the typed walk. A required property reported missing is
// passed over afterwards, as object's delete does.
func (v *validator) objectV(s *jsonSchema, x jv) {
	var dropped []string
	droppedPresent := 0
	for _, r := range s.Required {
		val, present := v.w.member(x, r)
		v.down(vstep{kind: stepChild, name: r})
		if slices.Contains(dropped, r) {
			present = false
		}
		if !present || (v.w.isZero(val) && !v.inFile(v.path())) || (val.k == jString && val.s == "") || (val.k == jOther && val.a == "") {
			v.errs = append(v.errs, field.Required(v.path(), ""))
			if present {
				droppedPresent++
			}
			dropped = append(dropped, r)
		}
		v.up()
	}
	if x.root {
		v.w.rootDropped = dropped
	}
	addl := s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil
	count := s.MinProperties != nil || s.MaxProperties != nil
	if s.Properties == nil && !addl && !count {
		return
	}
	if x.k == jStruct && !count {
		// Only the fields that can be wrong, in the same order.
		for _, bf := range bindingOf(s, x.p).fields {
			if dropped != nil && slices.Contains(dropped, bf.f.name) {
				continue
			}
			val, ok := v.w.field(x, bf.f)
			if !ok {
				continue
			}
			step := vstep{kind: stepChild, name: bf.f.name}
			if bf.key {
				step.kind = stepKey
			}
			v.down(step)
			v.validateV(bf.s, val)
			v.up()
		}
		return
	}
	n := -droppedPresent
	v.w.members(x, func(k string, val jv) {
		n++
		if dropped != nil && slices.Contains(dropped, k) {
			return
		}
		if ps, ok := s.Properties[k]; ok {
			v.down(vstep{kind: stepChild, name: k})
			v.validateV(ps, val)
			v.up()
		} else if addl {
			v.down(vstep{kind: stepKey, name: k})
			v.validateV(s.AdditionalProperties.Schema, val)
			v.up()
		}
	})
	if s.MinProperties != nil && int64(n) < *s.MinProperties {
		v.errs = append(v.errs, field.Invalid(v.path(), n, fmt.Sprintf("should have at least %d properties", *s.MinProperties)))
	}
	if s.MaxProperties != nil && int64(n) > *s.MaxProperties {
		v.errs = append(v.errs, field.TooMany(v.path(), n, int(*s.MaxProperties)))
	}
}

// arrayV is array of a value of the typed walk.
func (v *validator) arrayV(s *jsonSchema, x jv) {
	n := x.rv.Len()
	if s.MinItems != nil && int64(n) < *s.MinItems {
		v.errs = append(v.errs, field.Invalid(v.path(), int64(n), fmt.Sprintf("should have at least %d items", *s.MinItems)))
	}
	if s.MaxItems != nil && int64(n) > *s.MaxItems {
		v.errs = append(v.errs, field.TooMany(v.path(), n, int(*s.MaxItems)))
	}
	if s.Items != nil {
		for i := 0; i < n; i++ {
			if item, ok := v.w.jvOf(x.rv.Index(i), x.p.elem); ok {
				v.down(vstep{kind: stepIndex, index: i})
				v.validateV(s.Items, item)
				v.up()
			}
		}
	}
}

// metadataV is metadata of the typed walk's metadata (ok: the object has one).
func (v *validator) metadataV(md jv, ok bool, namespaced bool) {
	if !ok {
		v.errs = append(v.errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
		return
	}
	if md.k == jOther {
		m, _ := md.a.(map[string]any)
		v.metadata(m, namespaced)
		return
	}
	str := func(name string) string {
		x, _ := v.w.member(md, name)
		if x.k == jOther {
			s, _ := x.a.(string)
			return s
		}
		return x.s
	}
	strs := func(name string) map[string]string {
		x, ok := v.w.member(md, name)
		if !ok {
			return nil
		}
		if x.k == jMap {
			if m, ok := x.rv.Interface().(map[string]string); ok {
				return m
			}
		}
		return stringMap(v.box(x))
	}
	v.metadataRules(str("name"), str("generateName"), str("namespace"), strs("labels"), strs("annotations"), namespaced)
}

// binding is what the typed walk checks of a value of plan p against schema s, found
// once per pair.
type binding struct {
	trivial bool         // nothing under s can be wrong in a value of p
	fields  []boundField // jStruct: the fields that can be, in name order
}

type boundField struct {
	f   *tfield
	s   *jsonSchema
	key bool // checked against additionalProperties (a key step)
}

type bindKey struct {
	s *jsonSchema
	p *tplan
}

var bindings sync.Map // bindKey -> *binding

func bindingOf(s *jsonSchema, p *tplan) *binding {
	k := bindKey{s, p}
	if b, ok := bindings.Load(k); ok {
		return b.(*binding)
	}
	b := &binding{trivial: trivialFor(s, p)}
	if p.kind == jStruct && s != nil {
		for i := range p.fields {
			f := &p.fields[i]
			if fs, key := fieldSchema(s, f.name); fs != nil && !trivialFor(fs, f.plan) {
				b.fields = append(b.fields, boundField{f: f, s: fs, key: key})
			}
		}
	}
	got, _ := bindings.LoadOrStore(k, b)
	return got.(*binding)
}

// fieldSchema is the schema object checks a property name against (nil: none); key is
// true for additionalProperties.
func fieldSchema(s *jsonSchema, name string) (*jsonSchema, bool) {
	if ps, ok := s.Properties[name]; ok {
		return ps, false
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		return s.AdditionalProperties.Schema, true
	}
	return nil, false
}

// trivialFor reports whether validateV can find nothing in any value of plan p against
// s: s has no rule but a type that every such value has, and the same holds below.
func trivialFor(s *jsonSchema, p *tplan) bool {
	if s == nil {
		return true
	}
	if len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || len(s.Enum) > 0 || s.Pattern != "" ||
		s.Format == "email" || s.MinLength != nil || s.MaxLength != nil || s.Minimum != nil ||
		s.Maximum != nil || s.MinItems != nil || s.MaxItems != nil || len(s.Required) > 0 ||
		s.MinProperties != nil || s.MaxProperties != nil || s.XListType == "map" || s.XListType == "set" {
		return false
	}
	switch p.kind {
	case jString:
		return s.Type == "" || s.Type == "string"
	case jInt:
		return s.Type == "" || s.Type == "integer" || s.Type == "number" || (s.Type == "string" && s.XIntOrString)
	case jUint: // past MaxInt64 a float, which is not an int-or-string
		return s.Type == "" || s.Type == "integer" || s.Type == "number"
	case jBool:
		return s.Type == "" || s.Type == "boolean"
	case jStruct:
		if s.Type != "" && s.Type != "object" {
			return false
		}
		for i := range p.fields {
			if fs, _ := fieldSchema(s, p.fields[i].name); fs != nil && !trivialFor(fs, p.fields[i].plan) {
				return false
			}
		}
		return true
	case jMap:
		if (s.Type != "" && s.Type != "object") || len(s.Properties) > 0 {
			return false
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			return trivialFor(s.AdditionalProperties.Schema, p.elem)
		}
		return true
	case jSlice:
		if s.Type != "" && s.Type != "array" {
			return false
		}
		return trivialFor(s.Items, p.elem)
	}
	return false
}
