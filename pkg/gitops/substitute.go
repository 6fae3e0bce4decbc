package gitops

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// substitution is a Flux Kustomization's postBuild: the variables it substitutes in what
// it renders, from spec.postBuild.substitute and the ConfigMaps and Secrets of
// substituteFrom (later sources override earlier ones; substitute overrides them all, as
// Flux merges them).
type substitution struct {
	vars map[string]string
}

// unsetError names a variable that nothing sets and that has no default.
type unsetError struct{ Var string }

func (e *unsetError) Error() string { return fmt.Sprintf("variable %q is not set", e.Var) }

func (l *loader) substitution(e *manifest.Object) (*substitution, error) {
	u := content(e)
	pb, ok, _ := unstructured.NestedMap(u, "spec", "postBuild")
	if !ok {
		return nil, nil
	}
	s := &substitution{vars: map[string]string{}}
	from, _, _ := unstructured.NestedSlice(pb, "substituteFrom")
	for i, f := range from {
		ref, _ := f.(map[string]any)
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		optional, _ := ref["optional"].(bool)
		ns := e.Namespace
		src := l.raw.Find(kind, ns, name)
		if src == nil || group(src) != "" {
			if optional {
				continue
			}
			field := fmt.Sprintf("spec.postBuild.substituteFrom[%d]", i)
			return nil, &manifest.DecodeError{File: e.Source.File, Line: e.Line(field), Kind: e.Kind, Namespace: e.Namespace, Name: e.Name,
				Field: field, Msg: fmt.Sprintf("%s %q is not in the tree (a ConfigMap or a plain Secret of the repository; optional: true lets it be missing)", kind, name)}
		}
		c := content(src)
		if isSOPS(src) {
			return nil, &manifest.DecodeError{File: src.Source.File, Line: src.Source.Line, Kind: src.Kind, Namespace: src.Namespace, Name: src.Name,
				Msg: "substituteFrom names a SOPS-encrypted Secret: its values cannot be read offline"}
		}
		data, _, _ := unstructured.NestedStringMap(c, "data")
		for k, v := range data {
			if kind == "Secret" {
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					return nil, &manifest.DecodeError{File: src.Source.File, Line: src.Line("data[" + k + "]"), Kind: src.Kind, Namespace: src.Namespace, Name: src.Name,
						Field: "data[" + k + "]", Msg: "not base64"}
				}
				v = string(b)
			}
			s.vars[k] = v
		}
		if kind == "Secret" {
			sd, _, _ := unstructured.NestedStringMap(c, "stringData")
			for k, v := range sd {
				s.vars[k] = v
			}
		}
	}
	subst, _, _ := unstructured.NestedStringMap(pb, "substitute")
	for k, v := range subst {
		s.vars[k] = v
	}
	return s, nil
}

// varRE matches ${NAME}, ${NAME:=default}, ${NAME:-default}, ${NAME=default} and
// ${NAME-default}, the forms Flux substitutes; $${...} is a literal ${...}.
var varRE = regexp.MustCompile(`\$?\$\{([_a-zA-Z][_a-zA-Z0-9]*)((:?[-=])([^}]*))?\}`)

// apply substitutes the variables in a rendered object's YAML; a variable that is not set
// and has no default is an error naming it, never left as ${VAR}.
func (s *substitution) apply(text string) (string, error) {
	var unset *unsetError
	out := varRE.ReplaceAllStringFunc(text, func(m string) string {
		if strings.HasPrefix(m, "$$") {
			return m[1:]
		}
		sub := varRE.FindStringSubmatch(m)
		name, op, def := sub[1], sub[3], sub[4]
		v, ok := s.vars[name]
		switch {
		case ok && (v != "" || !strings.HasPrefix(op, ":")):
			return v
		case op != "":
			return def
		}
		if unset == nil {
			unset = &unsetError{Var: name}
		}
		return m
	})
	if unset != nil {
		return "", unset
	}
	return out, nil
}

func unsetVar(err error) string {
	if u, ok := err.(*unsetError); ok {
		return u.Var
	}
	return ""
}
