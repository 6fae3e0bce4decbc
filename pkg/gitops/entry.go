package gitops

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// overlay is what an entry adds on top of the directory it applies.
type overlay struct {
	namespace, prefix, suffix string
	patches                   []types.Patch
	patchLines                map[int]int // line before each inline patch's text
	recurse                   bool        // a plain directory is read recursively (Flux) or not (Argo CD by default)
	subst                     *substitution
	// labels and annotations are set on every object, over what it has (Flux's
	// spec.commonMetadata, Argo CD's kustomize.commonLabels and commonAnnotations): the
	// labels decide a cluster's team and environment, so they are applied, not ignored.
	labels, annotations map[string]string
	// components are kustomize Components, relative to the directory built.
	components []string
}

// transforms reports whether the overlay changes the objects it builds.
func (ov overlay) transforms() bool {
	return ov.namespace != "" || ov.prefix != "" || ov.suffix != "" || ov.subst != nil ||
		len(ov.labels) > 0 || len(ov.annotations) > 0 || len(ov.components) > 0
}

// argoOverlay reads an Argo CD Application's source; skip says why it is not rendered.
func (l *loader) argoOverlay(e *manifest.Object, u map[string]any) (path string, ov overlay, skip string, err error) {
	src, _, _ := unstructured.NestedMap(u, "spec", "source")
	if src == nil {
		return "", ov, "without spec.source", nil
	}
	if chart, _ := src["chart"].(string); chart != "" {
		return "", ov, "of a Helm chart", nil
	}
	path, _ = src["path"].(string)
	ov.prefix, _, _ = unstructured.NestedString(src, "kustomize", "namePrefix")
	ov.suffix, _, _ = unstructured.NestedString(src, "kustomize", "nameSuffix")
	ov.recurse, _, _ = unstructured.NestedBool(src, "directory", "recurse")
	ov.namespace, _, _ = unstructured.NestedString(src, "kustomize", "namespace")
	ov.labels, _, _ = unstructured.NestedStringMap(src, "kustomize", "commonLabels")
	ov.annotations, _, _ = unstructured.NestedStringMap(src, "kustomize", "commonAnnotations")
	ov.components, _, _ = unstructured.NestedStringSlice(src, "kustomize", "components")
	dir, ok := l.resolveDir(path)
	if !ok || path == "" {
		return "", ov, "of another repository", nil
	}
	if l.inChart(dir) != "" {
		return "", ov, "of a Helm chart", nil
	}
	return path, ov, "", ov.readPatches(e, u, "spec", "source", "kustomize", "patches")
}

// readPatches reads the entry's kustomize patches at the field path, each with the line
// before its inline text (for findings on what a patch set).
func (ov *overlay) readPatches(e *manifest.Object, u map[string]any, fields ...string) error {
	ps, ok, _ := unstructured.NestedSlice(u, fields...)
	if !ok {
		return nil
	}
	field := strings.Join(fields, ".")
	data, _ := sigsyaml.Marshal(ps)
	if err := sigsyaml.Unmarshal(data, &ov.patches); err != nil {
		return &manifest.DecodeError{File: e.Source.File, Line: e.Line(field), Kind: e.Kind,
			Namespace: e.Namespace, Name: e.Name, Field: field, Msg: "not patches kustomize can apply: " + err.Error()}
	}
	ov.patchLines = map[int]int{}
	for i := range ov.patches {
		ov.patchLines[i] = e.Line(fmt.Sprintf("%s[%d].patch", field, i))
	}
	return nil
}

// fluxOverlay reads a Flux Kustomization's path and what it adds to the build.
func (l *loader) fluxOverlay(e *manifest.Object, u map[string]any) (path string, ov overlay, err error) {
	path, _, _ = unstructured.NestedString(u, "spec", "path")
	ov.namespace, _, _ = unstructured.NestedString(u, "spec", "targetNamespace")
	ov.prefix, _, _ = unstructured.NestedString(u, "spec", "namePrefix")
	ov.suffix, _, _ = unstructured.NestedString(u, "spec", "nameSuffix")
	ov.recurse = true
	ov.labels, _, _ = unstructured.NestedStringMap(u, "spec", "commonMetadata", "labels")
	ov.annotations, _, _ = unstructured.NestedStringMap(u, "spec", "commonMetadata", "annotations")
	ov.components, _, _ = unstructured.NestedStringSlice(u, "spec", "components")
	if err := ov.readPatches(e, u, "spec", "patches"); err != nil {
		return "", ov, err
	}
	ov.subst, err = l.substitution(e)
	return path, ov, err
}

func (l *loader) renderEntry(e *manifest.Object, t *Tree) *output {
	if out, ok := l.rendered[e]; ok {
		return out
	}
	out := &output{files: map[string]bool{}}
	l.rendered[e] = out // guards a loop of entries
	if l.elsewhere(e, t) {
		return out
	}
	u := content(e)
	var ov overlay
	var path, pathField string
	if isArgoApplication(e) {
		defer inDestination(e, out) // whichever way it renders
	}
	if isArgoApplication(e) && l.multiSource(e, u, t, out) {
		return out
	}
	if isArgoApplication(e) {
		if l.argoHelm(e, u, out, t) {
			return out
		}
		var skip string
		var err error
		if path, ov, skip, err = l.argoOverlay(e, u); skip != "" {
			t.NotRendered["Application (argoproj.io) "+skip]++
			return out
		} else if err != nil {
			out.errs = append(out.errs, err)
			return out
		}
		pathField = "spec.source.path"
	} else {
		var err error
		if path, ov, err = l.fluxOverlay(e, u); err != nil {
			out.errs = append(out.errs, err)
			return out
		}
		pathField = "spec.path"
	}
	if path == "" {
		path = "."
	}
	objs, files, err := l.buildEntry(e, t, path, pathField, ov)
	if errors.Is(err, errNotRendered) {
		return out
	}
	if err != nil {
		out.errs = append(out.errs, err)
		return out
	}
	out.files = files
	l.startReleases(l.releasesOf(e, objs), objs)
	for i := range objs {
		o := &objs[i]
		if isHelmRelease(o) {
			if n := l.rawFor(o); n != nil && n != e {
				out.nested = append(out.nested, n)
				out.errs = append(out.errs, l.renderHelmRelease(n, o, objs, t).errs...)
			}
		}
		if isFluxKustomization(o) {
			if n := l.rawFor(o); n != nil && n != e {
				out.nested = append(out.nested, n)
				l.renderEntry(n, t)
				out.errs = append(out.errs, l.rendered[n].errs...)
			}
		}
	}
	out.objects = objs
	return out
}

// rawFor is the object of the tree a rendered object came from (same file and kind, the
// same name before any prefix), or nil.
func (l *loader) rawFor(o *manifest.Object) *manifest.Object {
	for i := range l.raw.Objects {
		r := &l.raw.Objects[i]
		if r.Source == o.Source && r.Kind == o.Kind {
			return r
		}
	}
	return nil
}

// plainKustomize renders a tree without entry points: each kustomization no other
// kustomization uses is built as `kubectl kustomize` builds it; the files outside every
// kustomization's directory are taken as they are.
func (l *loader) plainKustomize() (*manifest.Set, error) {
	used := map[string]bool{}
	for dir, k := range l.kusts {
		//lint:ignore SA1019 kustomize still builds bases, so a tree that lists them still uses those files
		for _, r := range append(append(append([]string{}, k.k.Resources...), k.k.Components...), k.k.Bases...) {
			used[filepath.Join(dir, r)] = true
		}
	}
	var roots []string
	for dir := range l.kusts {
		if !used[dir] {
			roots = append(roots, dir)
		}
	}
	sort.Strings(roots)
	var objs []manifest.Object
	var errs []error
	for _, dir := range roots {
		o, _, err := l.build(dir, overlay{}, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objs = append(objs, o...)
	}
	for _, o := range l.all {
		if !l.inKustomization(l.abs(o.Source.File)) {
			objs = append(objs, *o)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return newSet(objs)
}

// inKustomization reports whether a file is below a directory with a kustomization.
func (l *loader) inKustomization(abs string) bool {
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if _, ok := l.kusts[d]; ok {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// newSet is a target's objects as a Set: two objects of the same identity are an error,
// as two applies of one object in one cluster conflict.
func newSet(objs []manifest.Object) (*manifest.Set, error) {
	set := manifest.NewSet(objs)
	if errs := set.Duplicates(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}
