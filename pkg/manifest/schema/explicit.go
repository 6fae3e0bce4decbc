package schema

import (
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// explicitValue is a field the document sets to a value its Go type cannot show: an
// omitempty field written as "" (or 0, false, [], {}) decodes as if it were absent, and
// both walks pass over it, while the API server validates the document as written
// (defaults fill only absent and null fields) and refuses "" where an enum, a pattern or
// a minimum length does not allow it.
type explicitValue struct {
	path *field.Path
	val  any // as the JSON walk has it: "", int64(0), false, []any{} or map[string]any{}
}

// emptyList and emptyObject stand for [] and {}: shared, never changed (an object is
// validated as a fresh map of its defaults).
var (
	emptyList   = []any{}
	emptyObject = map[string]any{}
)

// Explicit are the explicit values of one object, for Validate.
type Explicit struct{ vals []explicitValue }

// noteEmpty records the field at p, of an omitempty struct field fv just filled from the
// node vn (not null), when fv holds a value the typed object leaves out. Cheap for the
// common case: a field that holds something returns at its first test.
func (c *converter) noteEmpty(vn *yaml.Node, fv reflect.Value, p *field.Path) {
	var val any
	switch fv.Kind() {
	case reflect.String:
		if fv.Len() == 0 {
			val = ""
		}
	case reflect.Bool:
		if !fv.Bool() {
			val = false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if fv.Int() == 0 {
			val = int64(0)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if fv.Uint() == 0 {
			val = int64(0)
		}
	case reflect.Float32, reflect.Float64:
		if fv.Float() == 0 {
			val = int64(0) // what a JSON round trip makes of a whole number
		}
	case reflect.Slice:
		if fv.Len() == 0 {
			if fv.Type().Elem().Kind() == reflect.Uint8 {
				val = "" // base64 text
			} else {
				val = emptyList
			}
		}
	case reflect.Map:
		if fv.Len() == 0 {
			val = emptyObject
		}
	case reflect.Struct:
		// A zero struct is left out too; only {} itself is recorded here (its fields, when
		// written, are recorded on their own).
		if n := yamldoc.Resolve(vn); n != nil && n.Kind == yaml.MappingNode && len(n.Content) == 0 && fv.IsZero() {
			val = emptyObject
		}
	}
	if val == nil {
		return
	}
	if n := yamldoc.Resolve(vn); n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return // null is absent for the server too
	}
	c.explicit = append(c.explicit, explicitValue{path: p, val: val})
}

// explicitFindings checks the recorded values of obj against the schema s of its kind, as
// the walks would check them had the typed object kept them; found are the walks'
// findings: a field (or what holds it) they already report on is not reported again.
func explicitFindings(obj Object, s *jsonSchema, found field.ErrorList) field.ErrorList {
	if obj.Explicit == nil {
		return nil
	}
	rv := reflect.ValueOf(obj.Obj)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil
	}
	v := &validator{lines: obj.Lines}
	for _, e := range obj.Explicit.vals {
		ps := e.path.String()
		steps := yamldoc.FieldSteps(ps)
		if len(steps) == 0 || steps[0] == "metadata" || steps[0] == "apiVersion" || steps[0] == "kind" {
			continue // the metadata rules and the header have their own checks
		}
		fs, at, ok := explicitAt(rv.Elem(), s, steps)
		if !ok {
			continue
		}
		reported := false
		for _, f := range found {
			if fsteps := yamldoc.FieldSteps(f.Field); len(fsteps) > 0 && (yamldoc.PrefixOf(fsteps, steps) || f.Field == ps) {
				reported = true
				break
			}
		}
		if reported {
			continue
		}
		val := e.val
		if _, ok := val.(map[string]any); ok {
			// Written as {} (only {} is recorded, and shared): the server fills the defaults
			// of its properties first, into a map of this value's own.
			m := map[string]any{}
			for k, ps := range fs.Properties {
				if ps != nil && ps.Default != nil {
					m[k] = ps.Default
				}
			}
			val = m
		}
		v.at = at
		v.validate(fs, val)
	}
	return v.errs
}

// explicitAt follows steps from the struct rv and its schema s to the schema of the field
// and the validator's steps for it; ok is false where the schema does not say (a form of
// anyOf, an untyped part) or where the object no longer holds the empty value there (it
// was changed in memory since it was read).
func explicitAt(rv reflect.Value, s *jsonSchema, steps []string) (*jsonSchema, []vstep, bool) {
	at := make([]vstep, 0, len(steps))
	for _, st := range steps {
		for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
			if rv.IsNil() {
				return nil, nil, false
			}
			rv = rv.Elem()
		}
		if s == nil {
			return nil, nil, false
		}
		switch rv.Kind() {
		case reflect.Struct:
			f, ok := structFields(rv.Type()).byName[st]
			if !ok {
				return nil, nil, false
			}
			if rv, ok = fieldByIndex(rv, f.index); !ok {
				return nil, nil, false
			}
			s = s.Properties[st]
			at = append(at, vstep{kind: yamldoc.StepChild, name: st})
		case reflect.Map:
			if rv.Type().Key().Kind() != reflect.String {
				return nil, nil, false
			}
			rv = rv.MapIndex(reflect.ValueOf(st).Convert(rv.Type().Key()))
			if !rv.IsValid() {
				return nil, nil, false
			}
			if ps, ok := s.Properties[st]; ok {
				s = ps
			} else if s.AdditionalProperties != nil {
				s = s.AdditionalProperties.Schema
			} else {
				s = nil
			}
			at = append(at, vstep{kind: yamldoc.StepKey, name: st})
		case reflect.Slice:
			i, err := strconv.Atoi(st)
			if err != nil || i < 0 || i >= rv.Len() {
				return nil, nil, false
			}
			rv = rv.Index(i)
			s = s.Items
			at = append(at, vstep{kind: yamldoc.StepIndex, index: i})
		default:
			return nil, nil, false
		}
	}
	if s == nil || !(isEmptyValue(rv) || (rv.Kind() == reflect.Struct && rv.IsZero())) {
		return nil, nil, false
	}
	return s, at, true
}
