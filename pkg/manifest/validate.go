package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/config/crd"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// jsonSchema is the part of an OpenAPI v3 (structural) schema that CRDs use.
type jsonSchema struct {
	Type                 string                 `json:"type,omitempty"`
	Format               string                 `json:"format,omitempty"`
	Enum                 []any                  `json:"enum,omitempty"`
	Pattern              string                 `json:"pattern,omitempty"`
	Minimum              *float64               `json:"minimum,omitempty"`
	Maximum              *float64               `json:"maximum,omitempty"`
	ExclusiveMinimum     bool                   `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum     bool                   `json:"exclusiveMaximum,omitempty"`
	MinLength            *int64                 `json:"minLength,omitempty"`
	MaxLength            *int64                 `json:"maxLength,omitempty"`
	MinItems             *int64                 `json:"minItems,omitempty"`
	MaxItems             *int64                 `json:"maxItems,omitempty"`
	MinProperties        *int64                 `json:"minProperties,omitempty"`
	MaxProperties        *int64                 `json:"maxProperties,omitempty"`
	Required             []string               `json:"required,omitempty"`
	Properties           map[string]*jsonSchema `json:"properties,omitempty"`
	AdditionalProperties *schemaOrBool          `json:"additionalProperties,omitempty"`
	Items                *jsonSchema            `json:"items,omitempty"`
	AllOf                []*jsonSchema          `json:"allOf,omitempty"`
	AnyOf                []*jsonSchema          `json:"anyOf,omitempty"`
	OneOf                []*jsonSchema          `json:"oneOf,omitempty"`
	Not                  *jsonSchema            `json:"not,omitempty"`
	Nullable             bool                   `json:"nullable,omitempty"`
	XIntOrString         bool                   `json:"x-kubernetes-int-or-string,omitempty"`
	XListType            string                 `json:"x-kubernetes-list-type,omitempty"`
	XListMapKeys         []string               `json:"x-kubernetes-list-map-keys,omitempty"`
	// Default is read for the explicit values (explicitFindings): the server fills the
	// defaults of an object written as {} before it validates it.
	Default any `json:"default,omitempty"`

	re *regexp.Regexp // Pattern compiled (nil: none, or one Go cannot compile)
	// matching remembers strings that match re: the same versions, sizes and names come
	// back in object after object, and a match costs more than the lookup.
	matching *goodSet
}

// compile compiles the patterns of s and of the schemas under it, once, when the schema
// is read.
func (s *jsonSchema) compile() {
	if s == nil {
		return
	}
	if s.Pattern != "" {
		s.re, s.matching = compiled(s.Pattern), &goodSet{max: 1 << 10}
	}
	for _, p := range s.Properties {
		p.compile()
	}
	if s.AdditionalProperties != nil {
		s.AdditionalProperties.Schema.compile()
	}
	s.Items.compile()
	for _, l := range [][]*jsonSchema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range l {
			x.compile()
		}
	}
	s.Not.compile()
}

type schemaOrBool struct {
	Schema *jsonSchema
	Allow  bool
}

func (s *schemaOrBool) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("true")) || bytes.Equal(bytes.TrimSpace(b), []byte("false")) {
		return json.Unmarshal(b, &s.Allow)
	}
	s.Allow = true
	return json.Unmarshal(b, &s.Schema)
}

type crdDoc struct {
	Spec struct {
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema *jsonSchema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[schema.GroupVersionKind]*jsonSchema{}
	patterns    sync.Map // pattern -> *regexp.Regexp, nil when it does not compile in Go
)

// schemaFor loads the schema of a known kind from the embedded generated CRDs.
func schemaFor(ki *kindInfo) (*jsonSchema, error) {
	if s := ki.schema.Load(); s != nil {
		return s, nil // read without the lock: every object asks
	}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[ki.gvk]; ok {
		return s, nil
	}
	data, err := crd.FS.ReadFile(ki.crd)
	if err != nil {
		return nil, fmt.Errorf("no CRD for %s: %w", ki.gvk.Kind, err)
	}
	var d crdDoc
	if err := yaml.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("CRD %s: %w", ki.crd, err)
	}
	for _, v := range d.Spec.Versions {
		if v.Name == ki.gvk.Version && v.Schema.OpenAPIV3Schema != nil {
			v.Schema.OpenAPIV3Schema.compile()
			schemaCache[ki.gvk] = v.Schema.OpenAPIV3Schema
			ki.schema.Store(v.Schema.OpenAPIV3Schema)
			return v.Schema.OpenAPIV3Schema, nil
		}
	}
	return nil, fmt.Errorf("CRD %s has no version %s", ki.crd, ki.gvk.Version)
}

// compiled returns a schema pattern compiled; the workers of a Load ask for it at every
// string they check, so it is read without a lock.
func compiled(p string) *regexp.Regexp {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil // an ECMA-only pattern: not checked rather than wrongly refused
	}
	v, _ := patterns.LoadOrStore(p, re)
	return v.(*regexp.Regexp)
}

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
	if obj.Obj == nil {
		return nil
	}
	gvk := obj.Obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		gvk = schema.FromAPIVersionAndKind(obj.APIVersion, obj.Kind)
	}
	ki := knownKinds[gvk]
	if ki == nil || reflect.TypeOf(obj.Obj) != reflect.PointerTo(ki.typ) {
		ki = kindOfObject(obj.Obj)
	}
	if ki == nil {
		return nil
	}
	fillIdentity(&obj)
	s, err := schemaFor(ki)
	if err != nil {
		return []*DecodeError{obj.errorAt("", 0, "%v", err)}
	}
	v := validators.Get().(*validator)
	defer v.release()
	v.lines = obj.lines
	if w, root := v.newWalk(ki, obj.Obj); w != nil && typed {
		v.w = w
		v.validateV(s, root)
		if !w.failed {
			v.errs = append(v.errs, celRules(obj.Obj)...)
			md, ok := w.member(root, "metadata")
			if ok && slices.Contains(w.rootDropped, "metadata") {
				ok = false
			}
			v.metadataV(md, ok, ki.namespaced)
		}
	}
	if v.w == nil || v.w.failed {
		var errs []*DecodeError
		if v, errs = validateJSON(&obj, ki, s); errs != nil {
			return errs
		}
	}
	v.errs = append(v.errs, semantic(obj.Obj, func(p *field.Path) bool {
		_, ok := obj.lines.Get(p.String())
		return ok
	})...)
	// After the walks and the sizes: a field they report on is not reported again.
	v.errs = append(v.errs, explicitFindings(&obj, s, v.errs)...)
	derrs := make([]*DecodeError, 0, len(v.errs))
	for _, e := range v.errs {
		derrs = append(derrs, obj.errorAt(e.Field, 0, "%s", e.ErrorBody()))
	}
	// Report in file order, the way a reader goes through the document.
	if len(derrs) > 1 {
		sort.SliceStable(derrs, func(i, j int) bool { return derrs[i].Line < derrs[j].Line })
	}
	return derrs
}

// validateJSON is the schema walk and the metadata rules over the object's JSON value,
// for an object the typed walk does not read.
func validateJSON(obj *Object, ki *kindInfo, s *jsonSchema) (*validator, []*DecodeError) {
	val, err := toJSONValue(obj.Obj)
	if err != nil {
		return nil, []*DecodeError{obj.errorAt("", 0, "%v", err)}
	}
	v := &validator{lines: obj.lines, at: make([]vstep, 0, 16)}
	v.validate(s, val)
	v.errs = append(v.errs, celRules(obj.Obj)...)
	if md, ok := val.(map[string]any)["metadata"].(map[string]any); ok {
		v.metadata(md, ki.namespaced)
	} else {
		v.errs = append(v.errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	return v, nil
}

// kindOfObject finds the known kind of a typed object by its Go type.
func kindOfObject(o runtime.Object) *kindInfo {
	return kindsByType[reflect.TypeOf(o)]
}

// kindsByType is knownKinds by the pointer type of their objects.
var kindsByType = func() map[reflect.Type]*kindInfo {
	m := make(map[reflect.Type]*kindInfo, len(knownKinds))
	for _, ki := range knownKinds {
		m[reflect.PointerTo(ki.typ)] = ki
	}
	return m
}()

// fillIdentity completes the identity fields of an object built in memory.
func fillIdentity(o *Object) {
	if ki := kindOfObject(o.Obj); ki != nil {
		if o.Kind == "" {
			o.Kind = ki.gvk.Kind
		}
		if o.APIVersion == "" {
			o.APIVersion = ki.gvk.GroupVersion().String()
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

// toJSONValue is the object as a manifest would hold it: rendered the way Write renders
// it (unset optional fields left out), then read back as JSON values.
func toJSONValue(o runtime.Object) (any, error) {
	if v, err := typedJSONValue(o); err != errNotTyped {
		return v, err
	}
	n, _, err := objectNode(o)
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
	lines *lineIndex // of the object's file; nil: an object built in memory
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
		if jsonEqual(e, val) {
			return true
		}
	}
	return false
}

// jsonEqual compares JSON values, treating integral floats and ints alike.
func jsonEqual(a, b any) bool {
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

func (v *validator) object(s *jsonSchema, m map[string]any) {
	for _, r := range s.Required {
		val, present := m[r]
		v.down(vstep{kind: yamldoc.StepChild, name: r})
		if !present || val == nil || (isZero(val) && !v.inFile(v.path())) || val == "" {
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

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if !isZero(e) {
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

// metadata applies the API server's ObjectMeta rules that matter in manifests.
func (v *validator) metadata(md map[string]any, namespaced bool) {
	name, _ := md["name"].(string)
	gen, _ := md["generateName"].(string)
	ns, _ := md["namespace"].(string)
	v.metadataRules(name, gen, ns, stringMap(md["labels"]), stringMap(md["annotations"]), namespaced)
}

// metadataRules are metadata's rules over its fields; labels and annotations are nil
// where metadata has none.
func (v *validator) metadataRules(name, gen, ns string, labels, annotations map[string]string, namespaced bool) {
	p := metadataPath
	switch {
	case name == "" && gen == "":
		v.errs = append(v.errs, field.Required(p.Child("name"), "name or generateName is required"))
	case name != "":
		for _, msg := range validateName(name) {
			v.errs = append(v.errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
	// The server clears the namespace of cluster-scoped objects, so it is only checked on
	// namespaced ones.
	if ns != "" && namespaced {
		for _, msg := range validateNamespaceName(ns) {
			v.errs = append(v.errs, field.Invalid(p.Child("namespace"), ns, msg))
		}
	}
	if labels != nil {
		v.errs = append(v.errs, validateLabels(labels, labelsPath)...)
	}
	if annotations != nil {
		v.errs = append(v.errs, validateAnnotations(annotations, annotationsPath)...)
	}
}

// Paths of metadata, shared: a field path is never changed, only extended.
var (
	metadataPath    = field.NewPath("metadata")
	labelsPath      = metadataPath.Child("labels")
	annotationsPath = metadataPath.Child("annotations")
)

func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, _ := e.(string)
		out[k] = s
	}
	return out
}
