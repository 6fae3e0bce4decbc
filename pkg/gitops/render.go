package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Annotations kustomize writes when asked for build metadata, read and then removed.
const (
	originAnnotation         = "config.kubernetes.io/origin"
	transformationAnnotation = "alpha.config.kubernetes.io/transformations"
	// Flux leaves an object unsubstituted with this annotation set to "disabled".
	substituteAnnotation = "kustomize.toolkit.fluxcd.io/substitute"
)

type loader struct {
	opts  Options
	raw   *manifest.Set
	root  []string
	kusts map[string]*kustomization // by absolute directory
	// manyKusts are the directories with more than one kustomization file, which
	// kustomize refuses: they are never rendered without it.
	manyKusts map[string]bool
	display   map[string]string // absolute path → path as walked
	// rendered caches each entry's output by entry.
	rendered map[*manifest.Object]*output
	// templates are the files that hold ${...}: Flux substitutes them before they decode.
	templates map[string]manifest.File // by absolute path
	// substituted caches a template decoded with an entry's variables, for positions.
	substituted map[templateKey]*manifest.Set
	files       map[string][]*manifest.Object // byFile
	notObjects  map[string]bool               // files holding YAML that is no object, by absolute path
	tolerate    func(apiVersion, kind, field string) bool
	once        *onceReader // what the load read, for a second pass
	// all are the raw objects in the order read, clusters whole, once renders need them
	// (objectsOf).
	all []*manifest.Object
	// kustAnnotationOps caches whether a kustomization's patches read or write annotations
	// (annotationOps).
	kustAnnotationOps *bool
	wd                string // the working directory, for abs
	// sources are the GitRepositories ("NAMESPACE/NAME") that are this repository; none:
	// every Flux Kustomization renders from it.
	sources    map[string]bool
	remotes    map[string]Remote         // the git repository's remotes by normalURL (remoteURLs)
	remotesErr error                     // why they could not be read
	charts     map[string]bool           // directories of Helm charts, absolute
	skipped    map[*manifest.Object]bool // entries whose source is not this repository
	// artifacts are the ExternalArtifacts the tree's ArtifactGenerators build (findArtifacts);
	// trees the source trees read, by root and ignore rules (sourceTree).
	artifacts map[string][]*externalArtifact
	trees     map[string]*sourceTree
	argo      argoState  // ApplicationSets and Applications of Applications
	helm      *helmState // the charts rendered (helm.go)
}

// byFile indexes the tree's objects by the absolute path of their file.
func (l *loader) byFile() map[string][]*manifest.Object {
	if l.files == nil {
		l.files = map[string][]*manifest.Object{}
		for _, o := range l.all {
			abs := l.abs(o.Source.File)
			l.files[abs] = append(l.files[abs], o)
		}
	}
	return l.files
}

// holdsNotObjects reports whether a file (absolute path) holds a document that is not a
// Kubernetes object, which kustomize, not the raw load, decides about in a build.
func (l *loader) holdsNotObjects(abs string) bool {
	if l.notObjects == nil {
		l.notObjects = map[string]bool{}
		for _, s := range l.raw.NotObjects {
			l.notObjects[l.abs(s.File)] = true
		}
	}
	return l.notObjects[abs]
}

type templateKey struct {
	file  string
	subst *substitution
}

// plainTemplates decodes the templates as manifests, for a tree without Flux: what does
// not decode is an error as anywhere else.
func (l *loader) plainTemplates() error {
	if len(l.templates) == 0 {
		return nil
	}
	files := make([]manifest.File, 0, len(l.templates))
	for _, f := range l.templates {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	set, err := manifest.LoadFiles(files, manifest.Options{AllowDuplicates: true, Tolerate: l.tolerate})
	if err != nil {
		return err
	}
	if l.all != nil {
		more, err := objectsOf(set) // held whole: nothing is read again
		if err != nil {
			return err
		}
		l.all = append(l.all, more...)
	}
	l.raw.Merge(set)
	l.raw.NotObjects = append(l.raw.NotObjects, set.NotObjects...)
	l.templates = map[string]manifest.File{}
	return nil
}

// template is a template decoded with an entry's variables (nil when it does not).
func (l *loader) template(abs string, s *substitution) *manifest.Set {
	k := templateKey{abs, s}
	if set, ok := l.substituted[k]; ok {
		return set
	}
	f := l.templates[abs]
	text := string(f.Data)
	if s != nil {
		if out, err := s.apply(text); err == nil {
			text = out
		}
	}
	set, err := manifest.LoadFiles([]manifest.File{{Name: f.Name, Data: []byte(text)}}, manifest.Options{AllowDuplicates: true, Tolerate: l.tolerate})
	if err != nil {
		set = nil
	}
	l.substituted[k] = set
	return set
}

// output is what one entry (or one root kustomization) renders.
type output struct {
	objects []manifest.Object
	files   map[string]bool // absolute paths of the manifest files it applies
	nested  []*manifest.Object
	errs    []error
}

func (l *loader) entries() []*manifest.Object {
	var out []*manifest.Object
	for i := range l.raw.Objects {
		o := &l.raw.Objects[i]
		if isFluxKustomization(o) || isArgoApplication(o) || isArgoApplicationSet(o) {
			out = append(out, o)
		}
	}
	return out
}

// rel is a path as the findings name it: as walked when the walk met it, else relative to
// the working directory.
func (l *loader) rel(abs string) string {
	if d, ok := l.display[abs]; ok {
		return d
	}
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, abs); err == nil {
			return r
		}
	}
	return abs
}

// render fills t.Targets from the entry points, or from the root kustomizations of a tree
// without entry points.
func (l *loader) render(t *Tree, entries []*manifest.Object) error {
	l.rendered = map[*manifest.Object]*output{}
	var errs []error
	if len(entries) == 0 {
		set, err := l.plainKustomize()
		if err != nil {
			return err
		}
		t.Targets = []Target{{Set: set}}
		return l.plainReleases(t)
	}
	l.argo = newArgoState()
	entries = l.expandSets(t, entries)
	// An entry another entry renders (a Flux Kustomization under clusters/<c>/ that
	// flux-system applies) belongs to that entry's target, not to one of its own.
	reachedBy := map[string]*manifest.Object{}
	for _, e := range entries {
		out := l.renderEntry(e, t)
		errs = append(errs, out.errs...)
		for f := range out.files {
			if _, ok := reachedBy[f]; !ok || reachedBy[f] == e {
				reachedBy[f] = e
			}
		}
	}
	errs = append(errs, l.appsOfApps(t, entries)...)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	byTarget := map[string][]*manifest.Object{}
	var names []string
	for _, e := range entries {
		if by, ok := reachedBy[l.abs(e.Source.File)]; (ok && by != e) || l.skipped[e] {
			continue // another entry's, or not rendered from this repository: no target
		}
		// An Application an entry creates is judged in its own destination's target.
		for _, d := range append([]*manifest.Object{e}, l.descendants(e)...) {
			if d != e && !isArgoApplication(d) {
				continue
			}
			name := targetName(l, d)
			if _, ok := byTarget[name]; !ok {
				names = append(names, name)
			}
			byTarget[name] = append(byTarget[name], d)
		}
	}
	sort.Strings(names)
	applied, errs := l.assemble(t, names, byTarget)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// Templates no entry applies are manifests like the others: they must decode.
	for abs := range l.templates {
		if applied[abs] {
			delete(l.templates, abs)
		}
	}
	if err := l.plainTemplates(); err != nil {
		return err
	}
	for _, o := range l.all {
		if judged(o) && !applied[l.abs(o.Source.File)] {
			t.Unreached = append(t.Unreached, *o)
		}
	}
	return nil
}

// assemble makes each target's Set: what its entries render, and what the Flux
// Kustomizations they render render in turn; applied are the files some target applies.
func (l *loader) assemble(t *Tree, names []string, byTarget map[string][]*manifest.Object) (map[string]bool, []error) {
	var errs []error
	applied := map[string]bool{}
	for _, name := range names {
		var objs []manifest.Object
		seen := map[*manifest.Object]bool{}
		var walk func(e *manifest.Object)
		walk = func(e *manifest.Object) {
			if seen[e] {
				return
			}
			seen[e] = true
			out := l.rendered[e]
			objs = append(objs, out.objects...)
			for f := range out.files {
				applied[f] = true
			}
			for _, n := range out.nested {
				walk(n)
			}
		}
		for _, e := range byTarget[name] {
			walk(e)
		}
		set, err := newSet(objs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t.Targets = append(t.Targets, Target{Name: name, Set: set})
	}
	return applied, errs
}

// targetName is the management cluster an entry reconciles into: clusters/<c> for a Flux
// Kustomization under clusters/<c>/ (the layout of Flux's bootstrap and of Butler's
// export), else its directory; for an Argo CD Application, its destination.
func targetName(l *loader, e *manifest.Object) string {
	if isArgoApplication(e) {
		u := content(e)
		dest, _, _ := unstructured.NestedString(u, "spec", "destination", "name")
		if dest == "" {
			dest, _, _ = unstructured.NestedString(u, "spec", "destination", "server")
		}
		if dest != "" {
			return "argocd:" + dest
		}
	}
	file := filepath.ToSlash(l.relToRoot(l.abs(e.Source.File)))
	parts := strings.Split(file, "/")
	for i := 0; i+1 < len(parts)-1; i++ {
		if parts[i] == "clusters" {
			return strings.Join(parts[:i+2], "/")
		}
	}
	return filepath.ToSlash(filepath.Dir(file))
}

func (l *loader) relToRoot(abs string) string {
	if r, err := filepath.Rel(l.root[0], abs); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return l.rel(abs)
}

func content(o *manifest.Object) map[string]any {
	if u, ok := o.Obj.(*unstructured.Unstructured); ok {
		return u.Object
	}
	return nil
}

// resolveDir finds an entry point's path: below the first directory of the manifests, or
// the repository root.
func (l *loader) resolveDir(p string) (string, bool) {
	for _, r := range l.root {
		d := filepath.Join(r, p)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d, true
		}
	}
	return "", false
}
