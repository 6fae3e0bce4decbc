package schema

import (
	"reflect"
	"sort"
	"sync"
)

// How the typed schema walk (typedwalk.go) reads Go types and binds them to schemas,
// computed once per type and per pair.

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
