package schema

import (
	"fmt"
	"net/mail"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// Object is what validation reads of an object read from a manifest (or built in memory):
// the object, what the document said it was, where its fields were written and the values
// it set that the object cannot show.
type Object struct {
	Obj runtime.Object
	// APIVersion and Kind are the document's, for an object whose type meta is empty.
	APIVersion, Kind string
	// Lines are the lines of its fields (nil: built in memory).
	Lines *yamldoc.LineIndex
	// Explicit are the fields the document set to a value Obj leaves out (Converter.Explicit).
	Explicit *Explicit
}

// Validate reports what the API server would refuse in a known object: everything its CRD
// schema checks and the metadata rules, with the CRDs' CEL rules cel states in Go. typed
// walks the typed object where the walk reads it; false walks its JSON value (the tests
// hold the two to the same findings). Unknown kinds give nothing; an error is a schema or
// an object the walks cannot read.
func Validate(obj Object, typed bool, cel func(runtime.Object) field.ErrorList) (field.ErrorList, error) {
	if obj.Obj == nil {
		return nil, nil
	}
	gvk := obj.Obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		gvk = schema.FromAPIVersionAndKind(obj.APIVersion, obj.Kind)
	}
	ki := knownKinds[gvk]
	if ki == nil || reflect.TypeOf(obj.Obj) != reflect.PointerTo(ki.typ) {
		ki = KindOf(obj.Obj)
	}
	if ki == nil {
		return nil, nil
	}
	s, err := schemaFor(ki)
	if err != nil {
		return nil, err
	}
	v := validators.Get().(*validator)
	defer v.release()
	v.lines = obj.Lines
	if w, root := v.newWalk(ki, obj.Obj); w != nil && typed {
		v.w = w
		v.validateV(s, root)
		if !w.failed {
			v.errs = append(v.errs, cel(obj.Obj)...)
			md, ok := w.member(root, "metadata")
			if ok && slices.Contains(w.rootDropped, "metadata") {
				ok = false
			}
			v.metadataV(md, ok, ki.namespaced)
		}
	}
	if v.w == nil || v.w.failed {
		if v, err = validateJSON(obj, ki, s, cel); err != nil {
			return nil, err
		}
	}
	v.errs = append(v.errs, semantic(obj.Obj, func(p *field.Path) bool {
		_, ok := obj.Lines.Get(p.String())
		return ok
	})...)
	// After the walks and the sizes: a field they report on is not reported again.
	v.errs = append(v.errs, explicitFindings(obj, s, v.errs)...)
	if len(v.errs) == 0 {
		return nil, nil
	}
	return slices.Clone(v.errs), nil // v.errs goes back to the pool with v
}

// validateJSON is the schema walk and the metadata rules over the object's JSON value,
// for an object the typed walk does not read.
func validateJSON(obj Object, ki *Kind, s *jsonSchema, cel func(runtime.Object) field.ErrorList) (*validator, error) {
	val, err := toJSONValue(obj.Obj)
	if err != nil {
		return nil, err
	}
	v := &validator{lines: obj.Lines, at: make([]vstep, 0, 16)}
	v.validate(s, val)
	v.errs = append(v.errs, cel(obj.Obj)...)
	if md, ok := val.(map[string]any)["metadata"].(map[string]any); ok {
		v.metadata(md, ki.namespaced)
	} else {
		v.errs = append(v.errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	return v, nil
}

// KindOf finds the known kind of a typed object by its Go type.
func KindOf(o runtime.Object) *Kind {
	return kindsByType[reflect.TypeOf(o)]
}

// kindsByType is knownKinds by the pointer type of their objects.
var kindsByType = func() map[reflect.Type]*Kind {
	m := make(map[reflect.Type]*Kind, len(knownKinds))
	for _, ki := range knownKinds {
		m[reflect.PointerTo(ki.typ)] = ki
	}
	return m
}()

// toJSONValue is the object as a manifest would hold it: rendered the way Write renders
// it (unset optional fields left out), then read back as JSON values.
func toJSONValue(o runtime.Object) (any, error) {
	if v, err := typedJSONValue(o); err != errNotTyped {
		return v, err
	}
	n, _, err := ObjectNode(o)
	if err != nil {
		return nil, err
	}
	c := newConverter(false)
	v, ok := c.untyped(n, nil, 0)
	if !ok {
		return nil, fmt.Errorf("cannot convert %T: %s", o, c.errs[0].msg)
	}
	return v, nil
}

// The validator keeps where it is in the object as a stack of steps: the field paths of
// the values that pass (nearly all) are never rendered, so they are not built either; a
// field.Path is made only for a finding.
type vstep struct {
	kind  uint8 // stepChild, stepKey or stepIndex
	name  string
	index int
}

// path is the field path of where the validator is; nil at the top.
func (v *validator) path() *field.Path {
	var p *field.Path
	for _, s := range v.at {
		switch s.kind {
		case yamldoc.StepChild:
			p = child(p, s.name)
		case yamldoc.StepKey:
			p = key(p, s.name)
		default:
			p = p.Index(s.index)
		}
	}
	return p
}

func (v *validator) down(s vstep) { v.at = append(v.at, s) }

func (v *validator) up() { v.at = v.at[:len(v.at)-1] }

type validator struct {
	lines *yamldoc.LineIndex // of the object's file; nil: an object built in memory
	errs  field.ErrorList
	at    []vstep // where it is (path)
	w     *walk   // of the typed walk; nil in the JSON walk
	walk  walk    // w's storage in the typed walk
}

// validators keeps the walkers of the typed walk (and their stacks) for the next object.
var validators = sync.Pool{New: func() any { return &validator{at: make([]vstep, 0, 16)} }}

// release empties v, keeping its stacks, and gives it back to validators.
func (v *validator) release() {
	clear(v.errs)
	*v = validator{at: v.at[:0], errs: v.errs[:0]}
	validators.Put(v)
}

// inFile reports whether a field was written in the file the object came from.
func (v *validator) inFile(p *field.Path) bool {
	if v.lines == nil {
		return true
	}
	_, ok := v.lines.Get(p.String())
	return ok
}

func (v *validator) str(s *jsonSchema, x string) {
	n := int64(utf8.RuneCountInString(x))
	if s.MinLength != nil && n < *s.MinLength {
		v.errs = append(v.errs, field.Invalid(v.path(), x, fmt.Sprintf("should be at least %d chars long", *s.MinLength)))
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		v.errs = append(v.errs, field.TooLong(v.path(), x, int(*s.MaxLength)))
	}
	if s.Pattern != "" {
		if s.re != nil && !s.matching.good(x, s.re.MatchString) {
			v.errs = append(v.errs, field.Invalid(v.path(), x, fmt.Sprintf("should match '%s'", s.Pattern)))
		}
	}
	if s.Format == "email" {
		if a, err := mail.ParseAddress(x); err != nil || a.Address != x {
			v.errs = append(v.errs, field.Invalid(v.path(), x, "must be an email address"))
		}
	}
}

func (v *validator) number(s *jsonSchema, f float64, x jv) {
	if s.Minimum != nil {
		if f < *s.Minimum || (s.ExclusiveMinimum && f == *s.Minimum) {
			op := "greater than or equal to"
			if s.ExclusiveMinimum {
				op = "greater than"
			}
			v.errs = append(v.errs, field.Invalid(v.path(), v.box(x), fmt.Sprintf("should be %s %v", op, *s.Minimum)))
		}
	}
	if s.Maximum != nil {
		if f > *s.Maximum || (s.ExclusiveMaximum && f == *s.Maximum) {
			op := "less than or equal to"
			if s.ExclusiveMaximum {
				op = "less than"
			}
			v.errs = append(v.errs, field.Invalid(v.path(), v.box(x), fmt.Sprintf("should be %s %v", op, *s.Maximum)))
		}
	}
}
