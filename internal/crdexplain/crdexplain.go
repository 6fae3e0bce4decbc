// Package crdexplain describes the fields of the kinds the tools carry, as kubectl explain
// does, offline: from the CRDs embedded in config/crd, with the rules docs/rules.md states
// for a field and the default Butler's policy library gives it.
package crdexplain

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/owncrds"
)

// Kind is one kind the tools carry a CRD for, at the version the CRD stores.
type Kind struct {
	Kind, Group, Version string
	// Names are what a user may call it by: kind, singular, plural and short names, lower
	// case.
	Names  []string
	Schema *apiextensionsv1.JSONSchemaProps
}

var (
	loadOnce sync.Once
	kinds    []*Kind
	loadErr  error
)

// Kinds are the kinds of the embedded CRDs, by kind name.
func Kinds() ([]*Kind, error) {
	loadOnce.Do(func() { kinds, loadErr = load() })
	return kinds, loadErr
}

func load() ([]*Kind, error) {
	crds, err := owncrds.All()
	if err != nil {
		return nil, err
	}
	var out []*Kind
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			if !v.Storage || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			n := c.Spec.Names
			names := []string{strings.ToLower(n.Kind), n.Singular, n.Plural}
			names = append(names, n.ShortNames...)
			out = append(out, &Kind{Kind: n.Kind, Group: c.Spec.Group, Version: v.Name, Names: names, Schema: v.Schema.OpenAPIV3Schema})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out, nil
}

// UnknownError is a kind or a field the CRDs do not have; Suggestions are the names closest
// to it, and Known all the names it could have been.
type UnknownError struct {
	What, Name  string // "kind" or "field" (then Name is the path so far), and the name
	Suggestions []string
	Known       []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %q", e.What, e.Name)
}

// FindKind finds a kind by any of its names, without case; a name may carry the group
// (tenantclusters.butler.butlerlabs.dev) or the version and group
// (tenantcluster.v1alpha1.butler.butlerlabs.dev), as kubectl takes them.
func FindKind(name string) (*Kind, error) {
	k, rest, err := Split(name)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, &UnknownError{What: "kind", Name: name, Known: kindNames()}
	}
	return k, nil
}

// Split finds the kind an explain argument starts with, as kubectl explain splits
// KIND[.VERSION][.GROUP][.FIELD.PATH]: the kind's name, then its version and group or its
// group when they follow it, and the rest is the field's path. A version other than the
// one the tools carry is an error naming it; a group of no kind of that name is read as
// the start of the path, as kubectl does, so the field lookup names it.
func Split(arg string) (*Kind, string, error) {
	ks, err := Kinds()
	if err != nil {
		return nil, "", err
	}
	arg = strings.TrimSuffix(arg, ".")
	base, rest, _ := strings.Cut(arg, ".")
	var named []*Kind
	for _, k := range ks {
		for _, n := range k.Names {
			if strings.EqualFold(n, base) {
				named = append(named, k)
				break
			}
		}
	}
	if len(named) == 0 {
		return nil, "", &UnknownError{What: "kind", Name: base, Suggestions: closest(strings.ToLower(base), allNames(ks)), Known: kindNames()}
	}
	for _, k := range named {
		if path, ok := after(rest, k.Version+"."+k.Group); ok {
			return k, path, nil
		}
		if path, ok := after(rest, k.Group); ok {
			return k, path, nil
		}
		if v, _, ok := strings.Cut(rest, "."); ok && strings.HasPrefix(rest, v+"."+k.Group) && v != k.Version && isVersion(v) {
			return nil, "", &VersionError{Kind: k, Asked: v}
		}
	}
	return named[0], rest, nil
}

// VersionError is a kind asked for at a version the tools carry no schema of.
type VersionError struct {
	Kind  *Kind
	Asked string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s.%s has no version %s: the tools carry %s", strings.ToLower(e.Kind.Kind), e.Kind.Group, e.Asked, e.Kind.Version)
}

// after is what follows prefix in s, as a whole dot-separated part: ("a.b.c", "a.b") is
// "c"; ("a.bc", "a.b") is no match.
func after(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return "", false
	}
	if len(s) == len(prefix) {
		return "", true
	}
	if s[len(prefix)] != '.' {
		return "", false
	}
	return s[len(prefix)+1:], true
}

// isVersion reports whether s reads as a Kubernetes API version (v1, v1alpha1, v2beta3).
func isVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] < '1' || s[1] > '9' {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && (r < 'a' || r > 'z') }) < 0
}

// kindNames are the kinds' names, for an error's list of what there is.
func kindNames() []string {
	ks, _ := Kinds()
	out := make([]string, 0, len(ks))
	for _, k := range ks {
		out = append(out, k.Kind)
	}
	return out
}

func allNames(ks []*Kind) map[string]string {
	m := map[string]string{}
	for _, k := range ks {
		for _, n := range k.Names {
			m[n] = k.Kind
		}
	}
	return m
}

// Field is a field of a kind found by its path.
type Field struct {
	Kind *Kind
	// Path is the field's path below the object ("spec.workers.replicas"); "" is the kind.
	Path     string
	Schema   *apiextensionsv1.JSONSchemaProps
	Required bool
}

// FindField walks path (a dot-separated list of field names below the kind) through the
// kind's schema; a list's fields are its items'.
func FindField(k *Kind, path string) (*Field, error) {
	f := &Field{Kind: k, Schema: k.Schema}
	if path == "" {
		return f, nil
	}
	var walked []string
	for _, name := range strings.Split(path, ".") {
		parent := Fields(f.Schema)
		child, ok := parent.Properties[name]
		if !ok {
			cands := map[string]string{}
			for n := range parent.Properties {
				cands[n] = n
			}
			return nil, &UnknownError{What: "field", Name: strings.Join(append(walked, name), "."),
				Suggestions: closest(name, cands), Known: sortedKeys(parent.Properties)}
		}
		walked = append(walked, name)
		f = &Field{Kind: k, Path: strings.Join(walked, "."), Schema: &child, Required: Contains(parent.Required, name)}
	}
	return f, nil
}

// Fields is the schema whose properties are s's fields: s's own, or its items' for a list
// (a list of lists, recursively); a map's values'.
func Fields(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	for s != nil {
		switch {
		case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
			s = s.Items.Schema
		case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			s = s.AdditionalProperties.Schema
		default:
			return s
		}
	}
	return &apiextensionsv1.JSONSchemaProps{}
}

// TypeName is a field's type as kubectl explain shows it: string, integer, boolean,
// Object, []Object, map[string]string, IntOrString.
func TypeName(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "IntOrString"
	case s.Type == "array":
		if s.Items != nil && s.Items.Schema != nil {
			return "[]" + TypeName(s.Items.Schema)
		}
		return "[]Object"
	case s.Type == "object":
		if len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			return "map[string]" + TypeName(s.AdditionalProperties.Schema)
		}
		return "Object"
	case s.Type == "":
		return "Object"
	}
	return s.Type
}

// SortedFields are the names of s's properties, sorted.
func SortedFields(s *apiextensionsv1.JSONSchemaProps) []string { return sortedKeys(s.Properties) }

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Contains reports whether l holds s (a schema's required list).
func Contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
