package gitops

import (
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

const bootstrapSync = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: https://example.com/platform.git, ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec:
  interval: 10m
  path: ./clusters/mgmt
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`

// fluxKust is a Flux Kustomization of namespace ns ("" for none) with a sourceRef.
func fluxKust(name, ns, ref string) string {
	meta := "{name: " + name + "}"
	if ns != "" {
		meta = "{name: " + name + ", namespace: " + ns + "}"
	}
	return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: ` + meta + `
spec:
  interval: 10m
  path: ./apps/` + name + `
  prune: true
  sourceRef: ` + ref + "\n"
}

// TestSources: a Flux Kustomization renders from this repository only when its source is
// the bootstrap sync's GitRepository (or one of Options.Sources); a sourceRef without
// namespace is the Kustomization's own namespace; one written without a namespace matches
// by name. A tenant's GitRepository and Kustomization of one name are not a bootstrap sync.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clusters/mgmt/flux-system/gotk-sync.yaml"), []byte(bootstrapSync))
	entries := map[string]string{
		"own":         fluxKust("own", "flux-system", "{kind: GitRepository, name: flux-system}"),
		"own-nons":    fluxKust("own-nons", "", "{kind: GitRepository, name: flux-system}"),
		"other-ns":    fluxKust("other-ns", "apps", "{kind: GitRepository, name: flux-system}"),
		"oci":         fluxKust("oci", "flux-system", "{kind: OCIRepository, name: flux-system}"),
		"tenant":      fluxKust("tenant", "tenant", "{kind: GitRepository, name: tenant}"),
		"tenant-repo": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: tenant, namespace: tenant}\nspec: {interval: 1m, url: https://example.com/t.git}\n",
	}
	for name, text := range entries {
		writeFile(t, filepath.Join(dir, "clusters/mgmt", name+".yaml"), []byte(text))
		writeFile(t, filepath.Join(dir, "apps", name, "ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: "+name+"}\n"))
	}
	skipped := func(opts Options) []string {
		t.Helper()
		tree, err := Load([]string{dir}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range tree.Elsewhere {
			names = append(names, e.Object.Name)
		}
		sort.Strings(names)
		return names
	}
	if got, want := skipped(Options{}), []string{"oci", "other-ns", "tenant"}; !reflect.DeepEqual(got, want) {
		t.Errorf("not rendered: %v, want %v", got, want)
	}
	if got, want := skipped(Options{Sources: []string{"tenant/tenant"}}), []string{"oci", "other-ns"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with tenant/tenant a source: not rendered %v, want %v", got, want)
	}
}
