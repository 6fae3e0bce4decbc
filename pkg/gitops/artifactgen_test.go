package gitops

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

const generator = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: gen, namespace: flux-system}
spec:
  sources:
    - {alias: repo, kind: GitRepository, name: flux-system}
    - {alias: oci, kind: OCIRepository, name: charts}
  artifacts:
    - name: plain
      copy:
        - {from: "@repo/apps/a/**", to: "@artifact/a/"}
    - name: merged
      copy:
        - {from: "@repo/apps/a/values.yaml", to: "@artifact/values.yaml"}
        - {from: "@repo/apps/b/values.yaml", to: "@artifact/values.yaml", strategy: Merge}
    - name: mixed
      copy:
        - {from: "@repo/apps/a/**", to: "@artifact/a/"}
        - {from: "@oci/chart/**", to: "@artifact/chart/"}
---
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: per-app, namespace: flux-system}
spec:
  sources:
    - {alias: repo, kind: GitRepository, name: flux-system}
  pathPattern: "@repo/apps/{app}"
  artifacts:
    - name: "app-{app}"
      copy:
        - {from: "@repo/apps/{app}/**", to: "@artifact/"}
`

// TestArtifactSources: a Kustomization of an ExternalArtifact that a generator of the tree
// builds from this repository alone renders from the artifact, its objects placed in the
// repository's files; one whose artifact copies from another source, merges YAML, comes
// from a pathPattern generator or is built by no generator of the tree is not rendered.
func TestArtifactSources(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clusters/mgmt/flux-system/gotk-sync.yaml"), []byte(bootstrapSync))
	writeFile(t, filepath.Join(dir, "clusters/mgmt/generator.yaml"), []byte(generator))
	writeFile(t, filepath.Join(dir, "apps/a/ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"))
	writeFile(t, filepath.Join(dir, "apps/a/values.yaml"), []byte("replicas: 1\n"))
	writeFile(t, filepath.Join(dir, "apps/b/values.yaml"), []byte("replicas: 2\n"))
	kusts := []string{
		strings.Replace(fluxKust("plain", "flux-system", "{kind: ExternalArtifact, name: plain}"), "./apps/plain", "./a", 1),
		fluxKust("merged", "flux-system", "{kind: ExternalArtifact, name: merged}"),
		fluxKust("mixed", "flux-system", "{kind: ExternalArtifact, name: mixed}"),
		fluxKust("app-a", "flux-system", "{kind: ExternalArtifact, name: app-a}"),
		fluxKust("nobody", "flux-system", "{kind: ExternalArtifact, name: nobody}"),
	}
	writeFile(t, filepath.Join(dir, "clusters/mgmt/apps.yaml"), []byte(strings.Join(kusts, "---\n")))
	tree, err := Load([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, e := range tree.Elsewhere {
		skipped = append(skipped, e.Object.Name)
	}
	sort.Strings(skipped)
	if want := []string{"app-a", "merged", "mixed", "nobody"}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("not rendered: %v, want %v", skipped, want)
	}
	if got := tree.NotRendered["Kustomization (kustomize.toolkit.fluxcd.io) from ExternalArtifact"]; got != 4 {
		t.Errorf("counted %d Kustomizations from ExternalArtifact, want 4", got)
	}
	if len(tree.Targets) != 1 {
		t.Fatalf("targets %v, want one", tree.Targets)
	}
	found := false
	for _, o := range tree.Targets[0].Set.Objects {
		if o.Kind == "Namespace" && o.Name == "a" {
			found = true
			if want := filepath.Join(dir, "apps/a/ns.yaml"); o.Source.File != want || o.Source.Line != 1 {
				t.Errorf("Namespace a placed at %s:%d, want %s:1", o.Source.File, o.Source.Line, want)
			}
		}
	}
	if !found {
		t.Errorf("Namespace a of the plain artifact not rendered: %v", tree.Targets[0].Set.Objects)
	}
}
