package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/owncrds"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// InstallCRDs is the next step for a missing or unserved Butler CRD.
const InstallCRDs = "install Butler's CRDs at the version the tools know: helm upgrade --install butler-crds <butler-charts>/butler-crds (or kubectl apply -f the chart's crds)"

// known are the CRDs the tools were built with (config/crd), by name.
func known() (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := owncrds.All()
	if err != nil {
		return nil, err
	}
	out := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for _, c := range crds {
		out[c.Name] = c
	}
	return out, nil
}

// checkCRDs checks each Butler CRD the tools know: present, established, serving the
// version the tools speak, and with the fields the tools know (newer or missing fields
// named).
func checkCRDs(ctx context.Context, e *env) []Check {
	want, err := known()
	if err != nil {
		return []Check{{Name: "crds", Verdict: Fail, Detail: err.Error(), Next: "this is a bug in the tools: report it"}}
	}
	names := make([]string, 0, len(want))
	for n, c := range want {
		if c.Spec.Group == v1alpha1.GroupVersion.Group {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []Check
	var ok []string
	for _, n := range names {
		c := checkCRD(ctx, e, want[n], v1alpha1.GroupVersion.Version)
		if c.Verdict == Skip && len(ok) == 0 && len(out) == 0 {
			c.Name = "crds" // one read refused: all of them are, say it once
			return []Check{c}
		}
		if c.Verdict == Pass {
			ok = append(ok, c.Detail)
			continue
		}
		out = append(out, c)
	}
	if len(ok) > 0 {
		out = append([]Check{{Name: "crds", Verdict: Pass, Detail: fmt.Sprintf("%d of %d Butler CRDs as the tools know them", len(ok), len(names))}}, out...)
	}
	return out
}

// checkCRD checks one CRD at version.
func checkCRD(ctx context.Context, e *env, want *apiextensionsv1.CustomResourceDefinition, version string) Check {
	name := "crd " + want.Name
	got := &apiextensionsv1.CustomResourceDefinition{}
	if err := get(ctx, e.clients.crds, "", "customresourcedefinitions", want.Name, got); err != nil {
		if notFound(err) {
			return Check{Name: name, Verdict: Fail, Detail: "missing: the tools cannot read or write " + want.Spec.Names.Kind + " objects", Next: InstallCRDs}
		}
		return readFailed(name, "CustomResourceDefinitions", err, e.o.Scope)
	}
	if !established(got) {
		return Check{Name: name, Verdict: Fail, Detail: "not Established: the API server does not serve it yet",
			Next: "kubectl describe crd " + want.Name + " (the conditions say why)"}
	}
	gv, wv := servedVersion(got, version), servedVersion(want, version)
	if gv == nil {
		return Check{Name: name, Verdict: Fail, Detail: fmt.Sprintf("does not serve %s, the version the tools speak (serves %s)", version, inert.Text(strings.Join(served(got), ", "))), Next: InstallCRDs}
	}
	newer, older := fieldDiff(schemaOf(gv), schemaOf(wv))
	switch {
	case len(newer) > 0:
		return Check{Name: name, Verdict: Warn, Detail: "newer than the tools: fields they do not know: " + firstOf(newer),
			Next: "use a release of the tools built for this Butler (butlerctl version); writes by these tools leave those fields unset"}
	case len(older) > 0:
		return Check{Name: name, Verdict: Warn, Detail: "older than the tools: fields the server drops: " + firstOf(older),
			Next: "upgrade Butler's CRDs (" + InstallCRDs + ")"}
	}
	return Check{Name: name, Verdict: Pass, Detail: want.Name}
}

func established(c *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextensionsv1.Established {
			return cond.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func servedVersion(c *apiextensionsv1.CustomResourceDefinition, v string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range c.Spec.Versions {
		if c.Spec.Versions[i].Name == v && c.Spec.Versions[i].Served {
			return &c.Spec.Versions[i]
		}
	}
	return nil
}

func served(c *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	for _, v := range c.Spec.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

func schemaOf(v *apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.JSONSchemaProps {
	if v == nil || v.Schema == nil {
		return nil
	}
	return v.Schema.OpenAPIV3Schema
}

// fieldDiff is the field paths only the server's schema has (newer) and only the tools'
// has (older), sorted.
func fieldDiff(server, tools *apiextensionsv1.JSONSchemaProps) (newer, older []string) {
	s, t := map[string]bool{}, map[string]bool{}
	paths("", server, s)
	paths("", tools, t)
	for p := range s {
		if !t[p] {
			newer = append(newer, p)
		}
	}
	for p := range t {
		if !s[p] {
			older = append(older, p)
		}
	}
	sort.Strings(newer)
	sort.Strings(older)
	return newer, older
}

// paths collects the field paths of a schema ("spec.environments[].name"); a schema that
// preserves unknown fields stops the walk, as the server does not prune below it.
func paths(prefix string, p *apiextensionsv1.JSONSchemaProps, into map[string]bool) {
	if p == nil {
		return
	}
	if p.Items != nil && p.Items.Schema != nil {
		paths(prefix+"[]", p.Items.Schema, into)
	}
	if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
		paths(prefix+"{}", p.AdditionalProperties.Schema, into)
	}
	for name := range p.Properties {
		if prefix == "" && (name == "apiVersion" || name == "kind" || name == "metadata") {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		into[path] = true
		sub := p.Properties[name]
		paths(path, &sub, into)
	}
}

// firstOf names up to five fields and counts the rest. The names are the server's
// schema's: made inert.
func firstOf(fields []string) string {
	const most = 5
	n := len(fields)
	if n > most {
		fields = fields[:most]
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = inert.Text(f)
	}
	if n <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names, ", "), n-most)
}

// stewardCRD is the name of Steward's TenantControlPlane CRD.
var stewardCRD = "tenantcontrolplanes." + stewardv1alpha1.GroupVersion.Group
