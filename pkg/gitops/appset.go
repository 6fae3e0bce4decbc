package gitops

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Argo CD's ApplicationSets are entry points through the Applications they generate: each
// generator gives parameter sets, the template rendered with each is an Application, and
// that Application renders as a written one does. The generators read this repository
// (list, git directories and files, and matrix and merge of those); the others ask a
// cluster or a forge (clusters, scmProvider, pullRequest, plugin, ...) and are counted as
// not rendered.

// Generated is an ApplicationSet and the Applications it generated ("NAMESPACE/NAME").
type Generated struct {
	Set  manifest.Object
	Apps []string
}

// Unrendered is an entry point, or a generator of an ApplicationSet, that was not
// rendered, and why: a generator kind this package does not expand, a git generator of
// another repository, a template Argo CD could not render either, a kustomization that
// names a remote resource.
type Unrendered struct {
	Object manifest.Object
	Field  string // "spec.generators[2]"
	Reason string // "with a clusters generator"
}

// renderedGenerators are the generator kinds expanded here.
var renderedGenerators = map[string]bool{"list": true, "git": true, "matrix": true, "merge": true}

func isArgoApplicationSet(o *manifest.Object) bool {
	return group(o) == "argoproj.io" && o.Kind == "ApplicationSet"
}

// appSetLabel is how the summary counts what an ApplicationSet does not render.
const appSetLabel = "ApplicationSet (argoproj.io) "

// generate is the Applications an ApplicationSet generates, once per ApplicationSet. One
// whose generators or template do not render generates nothing, as in Argo CD, whose
// controller reports the error on the ApplicationSet and leaves the rest syncing: it is
// counted and listed as not rendered, with the error.
func (l *loader) generate(s *manifest.Object, t *Tree) []*manifest.Object {
	if apps, ok := l.argo.sets[s]; ok {
		return apps
	}
	l.argo.sets[s] = nil
	u := content(s)
	var r renderer
	r.goTemplate, _, _ = unstructured.NestedBool(u, "spec", "goTemplate")
	r.options, _, _ = unstructured.NestedStringSlice(u, "spec", "goTemplateOptions")
	gens, _, _ := unstructured.NestedSlice(u, "spec", "generators")
	var all []params
	var errs []error
	expanded := 0
	for i, g := range gens {
		field := fmt.Sprintf("spec.generators[%d]", i)
		gm, _ := g.(map[string]any)
		ps, skip, err := l.generatorParams(s, gm, field, r, 0)
		switch {
		case err != nil:
			errs = append(errs, err)
		case skip != "":
			t.NotRendered[appSetLabel+skip]++
			t.Unrendered = append(t.Unrendered, Unrendered{Object: *s, Field: field, Reason: skip})
		default:
			expanded++
			all = append(all, ps...)
		}
	}
	var apps []*manifest.Object
	var names []string
	if len(errs) == 0 {
		var err error
		if apps, names, err = l.applications(s, all, r); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		t.NotRendered[appSetLabel+"that does not render"]++
		for _, err := range errs {
			field, msg := "spec", err.Error()
			var de *manifest.DecodeError
			if errors.As(err, &de) {
				field, msg = de.Field, de.Msg
			}
			t.Unrendered = append(t.Unrendered, Unrendered{Object: *s, Field: field,
				Reason: "that does not render, so Argo CD generates nothing from it either: " + msg})
		}
		return nil
	}
	l.argo.sets[s] = apps
	if expanded > 0 { // one whose generators are all counted as not rendered says nothing more
		t.Generated = append(t.Generated, Generated{Set: *s, Apps: names})
	}
	return apps
}

// maxGeneratorNesting bounds matrix and merge generators inside one another (Argo CD
// allows two levels).
const maxGeneratorNesting = 2

// generatorParams is one generator's parameter sets; skip, when not "", says why it is
// not expanded. depth counts the matrix or merge generators it is inside.
func (l *loader) generatorParams(s *manifest.Object, g map[string]any, field string, r renderer, depth int) (ps []params, skip string, err error) {
	kind := generatorKind(g)
	switch {
	case kind == "":
		return nil, "", l.setError(s, field, "no generator: expected one of list, git, matrix, merge, clusters, scmProvider, pullRequest, clusterDecisionResource, plugin")
	case !renderedGenerators[kind]:
		return nil, "with a " + kind + " generator", nil
	case g["selector"] != nil:
		return nil, "with a generator selector", nil
	}
	body, _ := g[kind].(map[string]any)
	if body == nil {
		return nil, "", l.setError(s, field+"."+kind, "not a map")
	}
	if t, ok := body["template"].(map[string]any); ok && len(t) > 0 {
		return nil, "with a generator's own template", nil
	}
	switch kind {
	case "list":
		ps, err = l.listParams(s, body, field+".list", r)
	case "git":
		ps, skip, err = l.gitParams(s, body, field+".git", r)
	default:
		if depth >= maxGeneratorNesting {
			return nil, "", l.setError(s, field, "%s generators nested deeper than %d", kind, maxGeneratorNesting)
		}
		ps, skip, err = l.combineParams(s, kind, body, field+"."+kind, r, depth+1)
	}
	return ps, skip, err
}

// generatorKind is the generator's kind: its one key besides selector and template.
func generatorKind(g map[string]any) string {
	var keys []string
	for k := range g {
		if k != "selector" && k != "template" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// listParams is a list generator's elements (and elementsYaml). For fasttemplate each
// value must be a string, values' entries becoming "values.NAME", as Argo CD requires.
func (l *loader) listParams(s *manifest.Object, body map[string]any, field string, r renderer) ([]params, error) {
	elems, _ := body["elements"].([]any)
	if y, _ := body["elementsYaml"].(string); y != "" {
		more, err := fromYAMLArray(y)
		if err != nil {
			return nil, l.setError(s, field+".elementsYaml", "not a YAML list: %v", err)
		}
		elems = append(elems, more...)
	}
	var out []params
	for i, el := range elems {
		m, ok := el.(map[string]any)
		if !ok {
			return nil, l.setError(s, fmt.Sprintf("%s.elements[%d]", field, i), "not a map")
		}
		if r.goTemplate {
			out = append(out, m)
			continue
		}
		p := params{}
		for k, v := range m {
			if vals, ok := v.(map[string]any); ok && k == "values" {
				for vk, vv := range vals {
					str, ok := vv.(string)
					if !ok {
						return nil, l.setError(s, fmt.Sprintf("%s.elements[%d].values.%s", field, i, vk), "not a string (without goTemplate every value must be)")
					}
					p["values."+vk] = str
				}
				continue
			}
			str, ok := v.(string)
			if !ok {
				return nil, l.setError(s, fmt.Sprintf("%s.elements[%d].%s", field, i, k), "not a string (without goTemplate every value must be)")
			}
			p[k] = str
		}
		out = append(out, p)
	}
	return out, nil
}

// applications renders the template (and templatePatch) with each parameter set.
func (l *loader) applications(s *manifest.Object, all []params, r renderer) ([]*manifest.Object, []string, error) {
	u := content(s)
	tmpl, _, _ := unstructured.NestedMap(u, "spec", "template")
	patch, _, _ := unstructured.NestedString(u, "spec", "templatePatch")
	var apps []*manifest.Object
	var names []string
	for _, p := range all {
		var out any = tmpl
		var err error
		if len(p) > 0 { // without parameters Argo CD leaves the template as written
			out, err = r.deep(tmpl, p)
		}
		if err != nil {
			return nil, nil, l.setError(s, "spec.template", "%v", err)
		}
		app := out.(map[string]any)
		if patch != "" && r.goTemplate {
			text, err := r.replace(patch, p)
			if err != nil {
				return nil, nil, l.setError(s, "spec.templatePatch", "%v", err)
			}
			over, err := fromYAML(text)
			if err != nil {
				return nil, nil, l.setError(s, "spec.templatePatch", "not YAML once rendered: %v", err)
			}
			app = mergeMaps(app, over)
		}
		a, err := l.application(s, app)
		if err != nil {
			return nil, nil, err
		}
		apps = append(apps, a)
		names = append(names, a.Namespace+"/"+a.Name)
	}
	return apps, names, nil
}

// application is one generated Application: where it was written is its
// ApplicationSet's, and its namespace the ApplicationSet's, as Argo CD creates it.
func (l *loader) application(s *manifest.Object, tmpl map[string]any) (*manifest.Object, error) {
	meta, _ := tmpl["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["namespace"] = s.Namespace
	name, _ := meta["name"].(string)
	if name == "" {
		return nil, l.setError(s, "spec.template.metadata.name", "a generated Application has no name")
	}
	obj := map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": tmpl["spec"]}
	// The JSON round trip gives the types a decoded document has (int64, not int).
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, l.setError(s, "spec.template", "%v", err)
	}
	un := &unstructured.Unstructured{}
	if err := un.UnmarshalJSON(data); err != nil {
		return nil, l.setError(s, "spec.template", "not an Application once rendered: %v", err)
	}
	a := *s
	a.APIVersion, a.Kind, a.Name, a.Namespace, a.Obj = un.GetAPIVersion(), "Application", name, s.Namespace, un
	return &a, nil
}

// mergeMaps is over laid on base: maps merged key by key, anything else (lists too)
// replaced. It is a strategic merge of an Application, whose lists have no merge keys, and
// how Helm's CLI merges values files and Flux merges valuesFrom and spec.values.
func mergeMaps(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeMaps(bm, om)
			continue
		}
		out[k] = v
	}
	return out
}

// setError is an error at a field of an ApplicationSet.
func (l *loader) setError(s *manifest.Object, field, format string, args ...any) error {
	return &manifest.DecodeError{File: s.Source.File, Doc: s.Source.Doc, Item: s.Source.Item, Line: s.Line(field),
		Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// String words what an ApplicationSet generated, for the report.
func (g Generated) String() string {
	name := g.Set.Name
	if g.Set.Namespace != "" {
		name = g.Set.Namespace + "/" + name
	}
	if len(g.Apps) == 0 {
		return fmt.Sprintf("ApplicationSet %s generated no Application", name)
	}
	return fmt.Sprintf("ApplicationSet %s generated %d Application(s): %s", name, len(g.Apps), strings.Join(g.Apps, ", "))
}
