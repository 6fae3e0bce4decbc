package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

func (v *validator) validate(s *jsonSchema, val any) {
	if s == nil || val == nil {
		return // null is what an omitted field looks like here
	}
	for _, sub := range s.AllOf {
		v.validate(sub, val)
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		subs := s.AnyOf
		if len(subs) == 0 {
			subs = s.OneOf
		}
		matched := 0
		var types []string
		for _, sub := range subs {
			if sub.Type != "" && !typeMatches(sub, val) {
				// What the trial would find first; an int-or-string value tries both.
				types = append(types, sub.Type)
				continue
			}
			trial := &validator{lines: v.lines, at: v.at, w: v.w}
			trial.validate(sub, val)
			if len(trial.errs) == 0 {
				matched++
			}
			if sub.Type != "" {
				types = append(types, sub.Type)
			}
		}
		if matched == 0 || (len(s.OneOf) > 0 && matched > 1) {
			detail := "does not match the allowed forms"
			if len(types) == len(subs) {
				detail = "must be of type " + strings.Join(types, " or ")
			}
			v.errs = append(v.errs, field.Invalid(v.path(), val, detail))
			return
		}
	}
	if !typeMatches(s, val) {
		v.errs = append(v.errs, field.Invalid(v.path(), val, "must be of type "+s.Type))
		return
	}
	if len(s.Enum) > 0 && !inEnum(s.Enum, val) {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprint(e)
		}
		v.errs = append(v.errs, field.NotSupported(v.path(), val, vals))
	}
	switch x := val.(type) {
	case string:
		v.str(s, x)
	case int64:
		v.number(s, float64(x), anyJV(val))
	case float64:
		v.number(s, x, anyJV(val))
	case map[string]any:
		v.object(s, x)
	case []any:
		v.array(s, x)
	}
}

func typeMatches(s *jsonSchema, val any) bool {
	switch s.Type {
	case "":
		return true
	case "string":
		_, isStr := val.(string)
		_, isInt := val.(int64)
		return isStr || (s.XIntOrString && isInt)
	case "integer":
		switch x := val.(type) {
		case int64:
			return true
		case float64:
			return x == math.Trunc(x)
		}
		return false
	case "number":
		switch val.(type) {
		case int64, float64:
			return true
		}
		return false
	case "boolean":
		_, ok := val.(bool)
		return ok
	case "object":
		_, ok := val.(map[string]any)
		return ok
	case "array":
		_, ok := val.([]any)
		return ok
	}
	return true
}

func inEnum(enum []any, val any) bool {
	for _, e := range enum {
		if JSONEqual(e, val) {
			return true
		}
	}
	return false
}

// JSONEqual compares JSON values, treating integral floats and ints alike.
func JSONEqual(a, b any) bool {
	fa, aNum := asFloat(a)
	fb, bNum := asFloat(b)
	if aNum || bNum {
		return aNum && bNum && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func (v *validator) object(s *jsonSchema, m map[string]any) {
	for _, r := range s.Required {
		val, present := m[r]
		v.down(vstep{kind: yamldoc.StepChild, name: r})
		if !present || val == nil || (IsZero(val) && !v.inFile(v.path())) || val == "" {
			v.errs = append(v.errs, field.Required(v.path(), ""))
			delete(m, r) // reported once, not again by its own schema
		}
		v.up()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ps, ok := s.Properties[k]; ok {
			v.down(vstep{kind: yamldoc.StepChild, name: k})
			v.validate(ps, m[k])
			v.up()
		} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			v.down(vstep{kind: yamldoc.StepKey, name: k})
			v.validate(s.AdditionalProperties.Schema, m[k])
			v.up()
		}
	}
	if s.MinProperties != nil && int64(len(m)) < *s.MinProperties {
		v.errs = append(v.errs, field.Invalid(v.path(), len(m), fmt.Sprintf("should have at least %d properties", *s.MinProperties)))
	}
	if s.MaxProperties != nil && int64(len(m)) > *s.MaxProperties {
		v.errs = append(v.errs, field.TooMany(v.path(), len(m), int(*s.MaxProperties)))
	}
}

func IsZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if !IsZero(e) {
				return false
			}
		}
		return true
	case []any:
		return len(x) == 0
	case string:
		return x == ""
	case int64:
		return x == 0
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

func (v *validator) array(s *jsonSchema, a []any) {
	if s.MinItems != nil && int64(len(a)) < *s.MinItems {
		v.errs = append(v.errs, field.Invalid(v.path(), int64(len(a)), fmt.Sprintf("should have at least %d items", *s.MinItems)))
	}
	if s.MaxItems != nil && int64(len(a)) > *s.MaxItems {
		v.errs = append(v.errs, field.TooMany(v.path(), len(a), int(*s.MaxItems)))
	}
	for i, item := range a {
		v.down(vstep{kind: yamldoc.StepIndex, index: i})
		v.validate(s.Items, item)
		v.up()
	}
	v.listKeys(s, a)
}

// listKeys refuses the duplicate keys of a list of x-kubernetes-list-type map or set.
func (v *validator) listKeys(s *jsonSchema, a []any) {
	if s.XListType != "map" && s.XListType != "set" {
		return
	}
	p := v.path()
	switch s.XListType {
	case "map":
		seen := map[string]bool{}
		for i, item := range a {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			vals := make([]any, len(s.XListMapKeys))
			for j, k := range s.XListMapKeys {
				vals[j] = m[k]
			}
			kb, _ := json.Marshal(vals)
			if seen[string(kb)] {
				if len(vals) == 1 {
					v.errs = append(v.errs, field.Duplicate(p.Index(i).Child(s.XListMapKeys[0]), vals[0]))
				} else {
					v.errs = append(v.errs, field.Duplicate(p.Index(i), vals))
				}
			}
			seen[string(kb)] = true
		}
	case "set":
		seen := map[string]bool{}
		for i, item := range a {
			kb, _ := json.Marshal(item)
			if seen[string(kb)] {
				v.errs = append(v.errs, field.Duplicate(p.Index(i), item))
			}
			seen[string(kb)] = true
		}
	}
}
