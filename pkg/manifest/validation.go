package manifest

import (
	"errors"
	"sort"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
)

// Validate reports what the API server would refuse in a known object: everything its
// CRD schema checks (required fields, types, enums, patterns, minimums and maximums,
// lengths, formats, unique list keys such as Team environment names) and the usual
// metadata rules (name, namespace, labels, annotations). It works on obj.Obj as it is now,
// so it also checks objects built or changed in memory; field lines come from the file the
// object was read from. Unknown kinds are not checked. Errors are *DecodeError values,
// joined.
func Validate(obj Object) error {
	derrs := validateObject(obj)
	errs := make([]error, len(derrs))
	for i, e := range derrs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// validateObject is Validate's findings, in file order.
func validateObject(obj Object) []*DecodeError { return validateObjectBy(obj, true) }

// validateObjectBy is validateObject by the typed walk where it reads the object (typed),
// or over the object's JSON value.
func validateObjectBy(obj Object, typed bool) []*DecodeError {
	found, err := schema.Validate(schema.Object{Obj: obj.Obj, APIVersion: obj.APIVersion, Kind: obj.Kind,
		Lines: obj.lines, Explicit: obj.explicit}, typed, celRules)
	if err == nil && len(found) == 0 {
		return nil
	}
	fillIdentity(&obj)
	if err != nil {
		return []*DecodeError{obj.errorAt("", 0, "%v", err)}
	}
	derrs := make([]*DecodeError, 0, len(found))
	for _, e := range found {
		derrs = append(derrs, obj.errorAt(e.Field, 0, "%s", e.ErrorBody()))
	}
	// Report in file order, the way a reader goes through the document.
	if len(derrs) > 1 {
		sort.SliceStable(derrs, func(i, j int) bool { return derrs[i].Line < derrs[j].Line })
	}
	return derrs
}

// fillIdentity completes the identity fields of an object built in memory.
func fillIdentity(o *Object) {
	if ki := schema.KindOf(o.Obj); ki != nil {
		if o.Kind == "" {
			o.Kind = ki.GVK().Kind
		}
		if o.APIVersion == "" {
			o.APIVersion = ki.GVK().GroupVersion().String()
		}
	}
	if m, ok := o.Obj.(interface {
		GetName() string
		GetNamespace() string
	}); ok {
		if o.Name == "" {
			o.Name = m.GetName()
		}
		if o.Namespace == "" {
			o.Namespace = m.GetNamespace()
		}
	}
}
