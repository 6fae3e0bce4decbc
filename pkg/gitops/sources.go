package gitops

import (
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Elsewhere is a Flux Kustomization or HelmRelease whose source is not this repository:
// what it applies is another artifact's, so it is not rendered from this tree.
type Elsewhere struct {
	Object manifest.Object
	// Source is its sourceRef, "KIND NAMESPACE/NAME".
	Source string
	// Kind is the source's kind (OCIRepository, Bucket, GitRepository, ExternalArtifact,
	// HelmRepository).
	Kind string
	// Field is the field naming the source ("" for spec.sourceRef).
	Field string
	// Why, when not "", is why a HelmRelease of this repository is not rendered (its
	// postRenderers, values the tree cannot read), in place of its source.
	Why string
}

// sourceRef is a Flux object's spec.sourceRef, its namespace defaulted as Flux defaults
// it: the referring object's own namespace.
type sourceRef struct{ kind, namespace, name string }

func (s sourceRef) String() string { return s.kind + " " + s.namespace + "/" + s.name }

// fluxSource reads a Flux Kustomization's sourceRef. A sourceRef without kind is taken as
// a GitRepository (Flux requires the kind; the tree may be older than that rule).
func fluxSource(e *manifest.Object) sourceRef {
	u := content(e)
	var s sourceRef
	s.kind, _, _ = unstructured.NestedString(u, "spec", "sourceRef", "kind")
	s.namespace, _, _ = unstructured.NestedString(u, "spec", "sourceRef", "namespace")
	s.name, _, _ = unstructured.NestedString(u, "spec", "sourceRef", "name")
	if s.kind == "" {
		s.kind = "GitRepository"
	}
	if s.namespace == "" {
		s.namespace = e.Namespace
	}
	return s
}

// findSources decides which GitRepositories are this repository: those of
// Options.Sources ("NAMESPACE/NAME"), the one each bootstrap sync of the tree points at
// (bootstrap), and those whose URL is a remote's of the repository (remoteSources).
// Neither: the bootstrap's conventional name, flux-system/flux-system, when a Kustomization
// or an ArtifactGenerator names it. None found: every Flux Kustomization sourced from a GitRepository renders from
// this repository, as before sources were followed, and SourceNote says so.
func (l *loader) findSources(t *Tree) {
	l.sources, l.skipped = map[string]bool{}, map[*manifest.Object]bool{}
	for _, s := range l.opts.Sources {
		l.sources[s] = true
	}
	gitRepos := map[string]bool{}
	for i := range l.raw.Objects {
		o := &l.raw.Objects[i]
		if group(o) == "source.toolkit.fluxcd.io" && o.Kind == "GitRepository" {
			gitRepos[o.Namespace+"/"+o.Name] = true
		}
	}
	anyFlux := false
	for i := range l.raw.Objects {
		o := &l.raw.Objects[i]
		if !isFluxKustomization(o) {
			continue
		}
		anyFlux = true
		if l.bootstrap(o) && gitRepos[o.Namespace+"/"+o.Name] {
			l.sources[o.Namespace+"/"+o.Name] = true
		}
	}
	if len(l.sources) == 0 {
		// flux bootstrap always names its GitRepository flux-system/flux-system, and
		// published repositories often hold only a placeholder for the generated
		// gotk-sync.yaml: the Kustomizations that name that source are this repository's.
		for i := range l.raw.Objects {
			o := &l.raw.Objects[i]
			if s := fluxSource(o); isFluxKustomization(o) && s.kind == "GitRepository" && s.namespace+"/"+s.name == bootstrapSource {
				l.sources[bootstrapSource] = true
				break
			}
		}
		// So do the ArtifactGenerators that copy from it (Flux's monorepo layout).
		for _, as := range l.findArtifacts() {
			for _, a := range as {
				for _, s := range a.sources {
					if s.kind == "GitRepository" && s.namespace+"/"+s.name == bootstrapSource {
						l.sources[bootstrapSource] = true
					}
				}
			}
		}
	}
	l.remoteSources(t)
	if len(l.sources) == 0 && anyFlux {
		t.SourceNote = "no Flux source of the tree is identified as this repository (no bootstrap " +
			"GitRepository and Kustomization pair such as flux-system/flux-system, none whose URL is " +
			"a git remote's of the repository, no --source): " +
			"every Flux Kustomization sourced from a GitRepository is rendered from this repository"
	}
}

// bootstrapSource is the GitRepository flux bootstrap creates for the repository it
// bootstraps, by that name in every cluster.
const bootstrapSource = "flux-system/flux-system"

// bootstrap reports whether a Flux Kustomization is a bootstrap sync, laid out as flux
// bootstrap (and Butler's export) writes it: named after its namespace N, sourced from
// the GitRepository N/N, and written in the directory N below its own spec.path
// (clusters/c/flux-system/gotk-sync.yaml applying ./clusters/c). A tenant's pair of a
// GitRepository and a Kustomization of one name is not enough: that is the layout of
// Flux's multi-tenancy, whose tenants' repositories are other repositories.
func (l *loader) bootstrap(k *manifest.Object) bool {
	s := fluxSource(k)
	if k.Name != k.Namespace || s.kind != "GitRepository" || s.namespace != k.Namespace || s.name != k.Name {
		return false
	}
	p, _, _ := unstructured.NestedString(content(k), "spec", "path")
	if p == "" {
		p = "."
	}
	dir, ok := l.resolveDir(p)
	return ok && filepath.Dir(l.abs(k.Source.File)) == filepath.Join(dir, k.Namespace)
}

// elsewhere reports whether a Flux Kustomization's source is not this repository, and
// records it in the tree once. A source of another kind (OCIRepository, Bucket) is never
// this repository; an ExternalArtifact is when an ArtifactGenerator of the tree builds it
// from this repository alone.
func (l *loader) elsewhere(e *manifest.Object, t *Tree) bool {
	if !isFluxKustomization(e) {
		return false
	}
	s := fluxSource(e)
	if l.ownRepository(s) {
		return false
	}
	if a := l.artifactFor(e, s); s.kind == "ExternalArtifact" && a != nil && l.ownArtifact(a) {
		return false // built from this repository: rendered from what its generator copies
	}
	l.skipped[e] = true
	t.NotRendered["Kustomization (kustomize.toolkit.fluxcd.io) from "+s.kind]++
	t.Elsewhere = append(t.Elsewhere, Elsewhere{Object: *e, Source: s.String(), Kind: s.kind})
	return true
}

// ownRepository reports whether a source is a GitRepository that is this repository. With
// none identified, every GitRepository is taken for this one. A reference written without
// a namespace (its parent decides where it lands) matches by name alone, and so does a
// GitRepository written without one.
func (l *loader) ownRepository(s sourceRef) bool {
	if s.kind != "GitRepository" {
		return false
	}
	if len(l.sources) == 0 || l.sources[s.namespace+"/"+s.name] || l.sources["/"+s.name] {
		return true
	}
	if s.namespace == "" {
		for k := range l.sources {
			if strings.HasSuffix(k, "/"+s.name) {
				return true
			}
		}
	}
	return false
}

// chartFile marks a Helm chart: its directory holds templates and values, not manifests.
const chartFile = "Chart.yaml"

// findCharts lists the directories of Helm charts among the files walked (a chart's own
// charts/ subcharts are part of it) and marks every file below them to be skipped.
func (l *loader) findCharts(files []string, t *Tree, skip map[string]bool) {
	var dirs []string
	for _, f := range files {
		if filepath.Base(f) == chartFile {
			dirs = append(dirs, filepath.Dir(l.abs(f)))
		}
	}
	sort.Strings(dirs)
	l.charts = map[string]bool{}
	for _, d := range dirs {
		if l.inChart(d) == "" {
			l.charts[d] = true
			t.Charts = append(t.Charts, filepath.ToSlash(l.rel(d)))
		}
	}
	for _, f := range files {
		if abs := l.abs(f); l.inChart(abs) != "" {
			skip[abs] = true
		}
	}
}

// inChart is the chart directory a path is below (or is), "" for none.
func (l *loader) inChart(abs string) string {
	for d := abs; ; d = filepath.Dir(d) {
		if l.charts[d] {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
