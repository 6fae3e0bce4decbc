package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/config/crd"
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
func schemaFor(ki *Kind) (*jsonSchema, error) {
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
