package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Why this file: kustomize's resource map finds an object of the same id by a linear scan
// each time it adds one, so a build of N objects costs about N squared (minutes at 10,000
// clusters in one overlay). Most of a GitOps tree needs none of kustomize's transformers:
// a directory Flux lists itself, a kustomization of plain resources. For those the result
// is the objects of the files, in the order kustomize accumulates them (each resources
// list in order, a directory's output in its place), which the raw load has decoded
// already. direct builds that result itself and gives kustomize only the files whose
// objects it must transform or read itself; anything it is not sure of is built by
// kustomize as a whole, as before.

// direct renders dir as build does, without kustomize where kustomize would only
// accumulate. ok is false when the build needs kustomize as a whole: then nothing was
// rendered.
func (l *loader) direct(dir string, ov overlay, e *manifest.Object) (objs []manifest.Object, files map[string]bool, ok bool, err error) {
	if ov.transforms() || l.annotationOps(ov, e) {
		// A patch on annotations: whether it applies without a build's metadata is for
		// kustomize's build as a whole to verify.
		return nil, nil, false, nil
	}
	w, patches, ok := l.walkDirect(dir, ov, e)
	if !ok {
		return nil, nil, false, nil
	}
	sel, ok := newSelection(patches)
	if !ok {
		return nil, nil, false, nil
	}
	// What kustomize must see: files the raw load did not decode as kustomize would read
	// them, and files holding an object a patch may select.
	subset := map[string]bool{}
	for _, it := range w.items {
		if it.obj == nil || sel.may(it.obj) {
			subset[it.file] = true
		}
	}
	ids := map[string]bool{}
	for _, it := range w.items {
		if subset[it.file] {
			continue
		}
		// Two objects of one id: kustomize refuses the build, in its words.
		k := idKey(it.obj.APIVersion, it.obj.Kind, it.obj.Namespace, it.obj.Name)
		if ids[k] {
			return nil, nil, false, nil
		}
		ids[k] = true
	}
	files = map[string]bool{}
	byFile := map[string][]manifest.Object{}
	var errs []error
	if len(subset) > 0 || len(patches) > 0 {
		if byFile, errs, ok = l.renderSubset(dir, ov, e, w, subset, ids, files); !ok {
			return nil, nil, false, nil
		}
	}
	done := map[string]bool{}
	for _, it := range w.items {
		if !subset[it.file] {
			objs = append(objs, *it.obj)
			files[it.file] = true
			continue
		}
		if !done[it.file] {
			done[it.file] = true
			objs = append(objs, byFile[it.file]...)
		}
	}
	return objs, files, true, errors.Join(errs...)
}

// walkDirect accumulates dir's resources and gathers every patch of the build (the
// kustomizations' and the entry's); false when only kustomize can build it.
func (l *loader) walkDirect(dir string, ov overlay, e *manifest.Object) (*directWalk, []patch, bool) {
	w := &directWalk{l: l, visiting: map[string]bool{}, kusts: map[string]*kustomization{}}
	var top []string // the resources of the build's own kustomization
	if _, ok := l.kusts[dir]; ok {
		top = []string{dir}
	} else {
		top = l.plainFiles(dir, ov.recurse)
	}
	for _, p := range top {
		if !w.add(p) {
			return nil, nil, false
		}
	}
	patches := append([]patch{}, w.patches...)
	for i, p := range ov.patches {
		if e == nil {
			return nil, nil, false
		}
		ps := patchesOf(e.Source.File, p.Patch, ov.patchLines[i], p.Target)
		if len(ps) == 0 {
			return nil, nil, false // a patch we cannot read may select anything
		}
		patches = append(patches, ps...)
	}
	return w, patches, true
}

// renderSubset has kustomize build the subset's files and decodes what it renders, by
// file (each recorded in files); ids are the ids of the objects taken as read, and false
// (kustomize as a whole) when a rendered object has one of them or comes from a file
// outside the subset.
func (l *loader) renderSubset(dir string, ov overlay, e *manifest.Object, w *directWalk, subset, ids, files map[string]bool) (map[string][]manifest.Object, []error, bool) {
	res, ok := l.buildSubset(dir, ov, e, w, subset)
	if !ok {
		return nil, nil, false
	}
	byFile := map[string][]manifest.Object{}
	var errs []error
	for _, r := range res.Resources() {
		keys := []string{idKey(r.GetApiVersion(), r.GetKind(), r.GetNamespace(), r.GetName())}
		for _, id := range r.PrevIds() {
			keys = append(keys, idKey(id.ApiVersion(), id.Kind, id.Namespace, id.Name))
		}
		for _, k := range keys {
			if ids[k] {
				return nil, nil, false
			}
		}
		for _, k := range keys {
			ids[k] = true
		}
		o, file, err := l.decodeRendered(r, res.tmp, ov, e)
		if !subset[file] {
			return nil, nil, false // not from a file we know: kustomize as a whole
		}
		files[file] = true
		if err != nil {
			errs = append(errs, err)
			continue
		}
		byFile[file] = append(byFile[file], o)
	}
	return byFile, errs, true
}

// directWalk accumulates a build's resources as kustomize does, in its order.
type directWalk struct {
	l        *loader
	items    []directItem
	patches  []patch
	visiting map[string]bool
	kusts    map[string]*kustomization // the kustomizations the build reads, by directory
}

// directItem is one object of the build, or (obj nil) a file kustomize must read.
type directItem struct {
	file string
	obj  *manifest.Object
}

// add accumulates one resource of a kustomization (absolute path); false when only
// kustomize can say what it holds.
func (w *directWalk) add(p string) bool {
	if k, ok := w.l.kusts[p]; ok {
		return w.kustomization(p, k)
	}
	if _, ok := w.l.templates[p]; ok {
		w.items = append(w.items, directItem{file: p})
		return true
	}
	objs := w.l.byFile()[p]
	if len(objs) == 0 || w.l.holdsNotObjects(p) {
		// Not decoded by the raw load (empty, skipped, not walked): kustomize reads it, if
		// it is a file; a directory without a kustomization or a URL is kustomize's to refuse
		// or fetch.
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
		w.items = append(w.items, directItem{file: p})
		return true
	}
	for _, o := range objs {
		if !plainObject(o) {
			w.items = append(w.items, directItem{file: p})
			return true
		}
	}
	for _, o := range objs {
		w.items = append(w.items, directItem{file: p, obj: o})
	}
	return true
}

// plainObject reports whether kustomize reads the object as the raw load did: a document
// of its own (not a list's item) with a kind and a name, and not kustomize's own kind. Any
// kind ending in List is not: kustomize unwraps its items whatever the group, where the raw
// load knows only its own lists. Nor is an object kustomize drops (local-config).
func plainObject(o *manifest.Object) bool {
	if o.Source.Item != 0 || o.APIVersion == "" || o.Kind == "" || o.Name == "" ||
		strings.HasPrefix(o.APIVersion, "kustomize.config.k8s.io/") || strings.HasSuffix(o.Kind, "List") {
		return false
	}
	if m, err := meta.Accessor(o.Obj); err != nil {
		return false
	} else if _, local := m.GetAnnotations()[konfig.IgnoredByKustomizeAnnotation]; local {
		return false
	}
	return true
}

func (w *directWalk) kustomization(dir string, k *kustomization) bool {
	if w.visiting[dir] || w.l.manyKusts[dir] || !onlyResourcesAndPatches(&k.k) {
		return false // a cycle or two kustomization files (kustomize refuses both), or transformers kustomize must run
	}
	w.visiting[dir] = true
	defer delete(w.visiting, dir)
	w.kusts[dir] = k
	if !k.allRead {
		return false // a patch we cannot read may select anything
	}
	w.patches = append(w.patches, k.patches...)
	for _, r := range k.k.Resources {
		if strings.Contains(r, "://") || strings.HasPrefix(r, "git@") || strings.HasPrefix(r, "github.com/") {
			return false
		}
		p := r
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, r)
		}
		if !w.add(filepath.Clean(p)) {
			return false
		}
	}
	return true
}

// onlyResourcesAndPatches reports whether a kustomization (as FixKustomization leaves it)
// has nothing but resources and patches, under the apiVersion kustomize accepts. An empty
// one is not: kustomize refuses it ("resources: []" is not empty).
func onlyResourcesAndPatches(k *types.Kustomization) bool {
	if k.Kind != types.KustomizationKind || k.APIVersion != types.KustomizationVersion ||
		(k.Resources == nil && k.Patches == nil) {
		return false
	}
	c := *k
	c.TypeMeta, c.Resources, c.Patches = types.TypeMeta{}, nil, nil
	return reflect.DeepEqual(c, types.Kustomization{})
}

// subsetBuild is kustomize's build of the subset, and the directory it ran in.
type subsetBuild struct {
	resmap.ResMap
	tmp string
}

// buildSubset runs kustomize on dir as build does, but each kustomization it reads lists,
// of its files, only those of subset (its directories all stay): the objects kustomize
// transforms or reads itself, with every object a patch could select. ok is false when
// the build fails; kustomize as a whole then says why.
func (l *loader) buildSubset(dir string, ov overlay, e *manifest.Object, w *directWalk, subset map[string]bool) (*subsetBuild, bool) {
	tmp, err := os.MkdirTemp("", "butler-render-")
	if err != nil {
		return nil, false
	}
	defer os.RemoveAll(tmp)
	k := types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Patches: ov.patches, BuildMetadata: []string{types.OriginAnnotations, types.TransformerAnnotations}}
	var top []string
	if _, ok := l.kusts[dir]; ok {
		top = []string{dir}
	} else {
		top = l.plainFiles(dir, ov.recurse)
	}
	for _, p := range top {
		if _, isKust := l.kusts[p]; !isKust && !subset[p] {
			continue
		}
		r, err := filepath.Rel(tmp, p)
		if err != nil {
			return nil, false
		}
		k.Resources = append(k.Resources, r)
	}
	data, err := sigsyaml.Marshal(k)
	if err != nil {
		return nil, false
	}
	if err := os.WriteFile(filepath.Join(tmp, "kustomization.yaml"), data, 0o600); err != nil {
		return nil, false
	}
	fs := &subsetFS{FileSystem: filesys.MakeFsOnDisk(), files: map[string][]byte{}}
	for kdir, kust := range w.kusts {
		text, ok := filterResources(kust.file, kdir, subset, l.kusts)
		if !ok {
			return nil, false
		}
		name := filepath.Join(kdir, filepath.Base(kust.file))
		fs.files[name] = text
		if real, err := filepath.EvalSymlinks(name); err == nil {
			fs.files[real] = text
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone // as build
	m, err := krusty.MakeKustomizer(opts).Run(fs, tmp)
	if err != nil {
		return nil, false
	}
	return &subsetBuild{ResMap: m, tmp: tmp}, true
}

// subsetFS is the disk, with the kustomization files of a subset build rewritten.
type subsetFS struct {
	filesys.FileSystem
	files map[string][]byte // by absolute path
}

func (f *subsetFS) ReadFile(path string) ([]byte, error) {
	if data, ok := f.files[filepath.Clean(path)]; ok {
		return data, nil
	}
	return f.FileSystem.ReadFile(path)
}

// filterResources is a kustomization file with its resources (and bases) cut to the
// directories and the files of subset.
func filterResources(file, dir string, subset map[string]bool, kusts map[string]*kustomization) ([]byte, bool) {
	data, err := fileio.ReadFile(file, manifest.DefaultMaxFileBytes)
	if err != nil {
		return nil, false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if key := m.Content[i].Value; key != "resources" && key != "bases" {
			continue
		}
		seq := m.Content[i+1]
		if seq.Kind != yaml.SequenceNode {
			return nil, false
		}
		var keep []*yaml.Node
		for _, item := range seq.Content {
			p := item.Value
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			p = filepath.Clean(p)
			if _, isKust := kusts[p]; isKust || subset[p] {
				keep = append(keep, item)
			}
		}
		seq.Content = keep
		seq.Style = yaml.FlowStyle // an empty list stays a list
		if len(keep) > 0 {
			seq.Style = 0
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, false
	}
	return out, true
}
