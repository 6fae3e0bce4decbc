package schema

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// The schema walk reads a typed object where it is, instead of the JSON value tree
// typedJSONValue would make of it (a map per struct, a boxed value per field: most of
// validation's time and garbage). A jv is one value of that tree, seen through the Go
// value: scalars are read out (a quantity as its text), objects and arrays stay Go values,
// and what renders itself (times, raw JSON, floats, bytes) is rendered, as typedJSONValue
// does, and walked as JSON. TestTypedWalkAsJSON holds the findings of both walks equal.

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
		v.down(vstep{kind: yamldoc.StepChild, name: r})
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
			step := vstep{kind: yamldoc.StepChild, name: bf.f.name}
			if bf.key {
				step.kind = yamldoc.StepKey
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
			v.down(vstep{kind: yamldoc.StepChild, name: k})
			v.validateV(ps, val)
			v.up()
		} else if addl {
			v.down(vstep{kind: yamldoc.StepKey, name: k})
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
				v.down(vstep{kind: yamldoc.StepIndex, index: i})
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
