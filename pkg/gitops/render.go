package gitops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

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
	opts    Options
	raw     *manifest.Set
	root    []string
	kusts   map[string]*kustomization // by absolute directory
	display map[string]string         // absolute path → path as walked
	// rendered caches each entry's output by entry.
	rendered map[*manifest.Object]*output
	// templates are the files that hold ${...}: Flux substitutes them before they decode.
	templates map[string]manifest.File // by absolute path
	// substituted caches a template decoded with an entry's variables, for positions.
	substituted map[templateKey]*manifest.Set
	files       map[string][]*manifest.Object // byFile
	tolerate    func(apiVersion, kind, field string) bool
}

// byFile indexes the tree's objects by the absolute path of their file.
func (l *loader) byFile() map[string][]*manifest.Object {
	if l.files == nil {
		l.files = map[string][]*manifest.Object{}
		for i := range l.raw.Objects {
			o := &l.raw.Objects[i]
			abs := absPath(o.Source.File)
			l.files[abs] = append(l.files[abs], o)
		}
	}
	return l.files
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
	l.raw.Objects = append(l.raw.Objects, set.Objects...)
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

// entry is a Flux Kustomization or Argo CD Application that applies part of the tree.
type entry struct {
	obj    *manifest.Object
	target string
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
		if isFluxKustomization(o) || isArgoApplication(o) {
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
		return nil
	}
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
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	byTarget := map[string][]*manifest.Object{}
	var names []string
	for _, e := range entries {
		if by, ok := reachedBy[absPath(e.Source.File)]; ok && by != e {
			continue
		}
		name := targetName(l, e)
		if _, ok := byTarget[name]; !ok {
			names = append(names, name)
		}
		byTarget[name] = append(byTarget[name], e)
	}
	sort.Strings(names)
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
	for _, o := range l.raw.Objects {
		if judged(&o) && !applied[absPath(o.Source.File)] {
			t.Unreached = append(t.Unreached, o)
		}
	}
	return nil
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
	file := filepath.ToSlash(l.relToRoot(absPath(e.Source.File)))
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

// overlay is what an entry adds on top of the directory it applies.
type overlay struct {
	namespace, prefix, suffix string
	patches                   []types.Patch
	patchLines                map[int]int // line before each inline patch's text
	recurse                   bool        // a plain directory is read recursively (Flux) or not (Argo CD by default)
	subst                     *substitution
}

func (l *loader) renderEntry(e *manifest.Object, t *Tree) *output {
	if out, ok := l.rendered[e]; ok {
		return out
	}
	out := &output{files: map[string]bool{}}
	l.rendered[e] = out // guards a loop of entries
	u := content(e)
	fail := func(field, format string, args ...any) *output {
		out.errs = append(out.errs, &manifest.DecodeError{File: e.Source.File, Line: e.Line(field), Kind: e.Kind,
			Namespace: e.Namespace, Name: e.Name, Field: field, Msg: fmt.Sprintf(format, args...)})
		return out
	}
	var ov overlay
	var path, pathField string
	if isArgoApplication(e) {
		src, _, _ := unstructured.NestedMap(u, "spec", "source")
		if src == nil {
			t.NotRendered["Application (argoproj.io) without spec.source"]++
			return out
		}
		if chart, _ := src["chart"].(string); chart != "" {
			t.NotRendered["Application (argoproj.io) of a Helm chart"]++
			return out
		}
		path, _ = src["path"].(string)
		pathField = "spec.source.path"
		ov.prefix, _, _ = unstructured.NestedString(src, "kustomize", "namePrefix")
		ov.suffix, _, _ = unstructured.NestedString(src, "kustomize", "nameSuffix")
		ov.recurse, _, _ = unstructured.NestedBool(src, "directory", "recurse")
		if _, ok := l.resolveDir(path); !ok || path == "" {
			t.NotRendered["Application (argoproj.io) of another repository"]++
			return out
		}
	} else {
		path, _, _ = unstructured.NestedString(u, "spec", "path")
		pathField = "spec.path"
		ov.namespace, _, _ = unstructured.NestedString(u, "spec", "targetNamespace")
		ov.prefix, _, _ = unstructured.NestedString(u, "spec", "namePrefix")
		ov.suffix, _, _ = unstructured.NestedString(u, "spec", "nameSuffix")
		ov.recurse = true
		if ps, ok, _ := unstructured.NestedSlice(u, "spec", "patches"); ok {
			data, _ := sigsyaml.Marshal(ps)
			if err := sigsyaml.Unmarshal(data, &ov.patches); err != nil {
				return fail("spec.patches", "not patches kustomize can apply: %v", err)
			}
			ov.patchLines = map[int]int{}
			for i := range ov.patches {
				ov.patchLines[i] = e.Line(fmt.Sprintf("spec.patches[%d].patch", i))
			}
		}
		s, err := l.substitution(e)
		if err != nil {
			out.errs = append(out.errs, err)
			return out
		}
		ov.subst = s
	}
	if path == "" {
		path = "."
	}
	dir, ok := l.resolveDir(path)
	if !ok {
		return fail(pathField, "%q is not a directory of this repository", path)
	}
	objs, files, err := l.build(dir, ov, e)
	if err != nil {
		out.errs = append(out.errs, err)
		return out
	}
	out.files = files
	for i := range objs {
		o := &objs[i]
		if isHelmRelease(o) {
			t.NotRendered["HelmRelease (helm.toolkit.fluxcd.io)"]++
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
	for _, o := range l.raw.Objects {
		if !l.inKustomization(absPath(o.Source.File)) {
			objs = append(objs, o)
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
	set := &manifest.Set{Objects: objs}
	if errs := set.Duplicates(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// build runs kustomize on dir with the entry's overlay (e may be nil), and decodes what it
// renders strictly, each object placed where it was written.
func (l *loader) build(dir string, ov overlay, e *manifest.Object) ([]manifest.Object, map[string]bool, error) {
	tmp, err := os.MkdirTemp("", "butler-render-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	k := types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Namespace: ov.namespace, NamePrefix: ov.prefix, NameSuffix: ov.suffix, Patches: ov.patches,
		BuildMetadata: []string{types.OriginAnnotations, types.TransformerAnnotations}}
	if _, ok := l.kusts[dir]; ok {
		r, err := filepath.Rel(tmp, dir)
		if err != nil {
			return nil, nil, err
		}
		k.Resources = []string{r}
	} else {
		// Flux (and Argo CD) apply a directory without a kustomization as one listing its
		// manifests, and the directories below it that have one.
		for _, f := range l.plainFiles(dir, ov.recurse) {
			r, err := filepath.Rel(tmp, f)
			if err != nil {
				return nil, nil, err
			}
			k.Resources = append(k.Resources, r)
		}
	}
	data, err := sigsyaml.Marshal(k)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "kustomization.yaml"), data, 0o600); err != nil {
		return nil, nil, err
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone // as Flux builds
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), tmp)
	if err != nil {
		file := l.rel(filepath.Join(dir, "kustomization.yaml"))
		if e != nil {
			file = e.Source.File
		}
		msg := strings.ReplaceAll(err.Error(), tmp+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, tmp, "")
		return nil, nil, &manifest.DecodeError{File: file, Line: 1, Msg: "kustomize build " + l.rel(dir) + ": " + msg}
	}
	files := map[string]bool{}
	var objs []manifest.Object
	var errs []error
	for _, res := range m.Resources() {
		o, file, err := l.decodeRendered(res, tmp, ov, e)
		if file != "" {
			files[file] = true
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objs = append(objs, o)
	}
	return objs, files, errors.Join(errs...)
}

// plainFiles lists the manifest files of a directory without a kustomization (and the
// directories below it that have one), as the raw load read them.
func (l *loader) plainFiles(dir string, recurse bool) []string {
	seen := map[string]bool{}
	var out []string
	for f := range l.byFile() {
		if seen[f] {
			continue
		}
		r, err := filepath.Rel(dir, f)
		if err != nil || strings.HasPrefix(r, "..") {
			continue
		}
		if !recurse && strings.Contains(r, string(filepath.Separator)) {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	for f := range l.templates {
		r, err := filepath.Rel(dir, f)
		if err != nil || strings.HasPrefix(r, "..") || seen[f] || (!recurse && strings.Contains(r, string(filepath.Separator))) {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	for kd := range l.kusts {
		r, err := filepath.Rel(dir, kd)
		if err != nil || r == "." || strings.HasPrefix(r, "..") || (!recurse && strings.Contains(r, string(filepath.Separator))) {
			continue
		}
		out = append(out, kd)
	}
	// A file below a directory that has its own kustomization is that kustomization's.
	var keep []string
	for _, f := range out {
		nested := false
		for d := filepath.Dir(f); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if _, ok := l.kusts[d]; ok && d != f {
				nested = true
				break
			}
		}
		if !nested {
			keep = append(keep, f)
		}
	}
	sort.Strings(keep)
	return keep
}

// decodeRendered decodes one rendered resource strictly and places it where it was
// written: the file and object it came from, and the patches that set its fields.
func (l *loader) decodeRendered(res *resource.Resource, tmp string, ov overlay, e *manifest.Object) (manifest.Object, string, error) {
	origin, _ := res.GetOrigin()
	trans, _ := res.GetTransformations()
	anns := res.GetAnnotations()
	delete(anns, originAnnotation)
	delete(anns, transformationAnnotation)
	if err := res.SetAnnotations(anns); err != nil {
		return manifest.Object{}, "", err
	}
	var file string
	if origin != nil && origin.Path != "" && origin.Repo == "" {
		file = filepath.Clean(filepath.Join(tmp, origin.Path))
	}
	origName := res.GetName()
	if ids := res.PrevIds(); len(ids) > 0 {
		origName = ids[0].Name
	}
	src := l.source(file, res.GetKind(), origName, ov.subst)
	substitutes := ov.subst != nil && anns[substituteAnnotation] != "disabled"
	if _, tmpl := l.templates[file]; src != nil && !tmpl && !substitutes && !l.touched(trans, tmp, ov, e, res.GetKind(), origName, res.GetName()) && res.GetName() == src.Name {
		// Nothing transformed it: it is the object as written, decoded already.
		return *src, file, nil
	}
	data, err := res.AsYAML()
	if err != nil {
		return manifest.Object{}, file, err
	}
	name := l.rel(file)
	if file == "" {
		name = "<generated>"
	}
	if substitutes {
		out, err := ov.subst.apply(string(data))
		if err != nil {
			line := 0
			if src != nil {
				line = src.Source.Line
			}
			if f, ok := l.templates[file]; ok {
				if n := lineOf(string(f.Data), "${"+unsetVar(err)); n > 0 {
					line = n
				}
			}
			return manifest.Object{}, file, &manifest.DecodeError{File: name, Line: line, Kind: res.GetKind(),
				Namespace: res.GetNamespace(), Name: res.GetName(),
				Msg: fmt.Sprintf("postBuild: variable %q is not set: %s %q (%s) substitutes nothing for it in spec.postBuild.substitute or substituteFrom, and it has no default", unsetVar(err), e.Kind, e.Name, e.Source.File)}
		}
		data = []byte(out)
	}
	set, err := manifest.LoadFiles([]manifest.File{{Name: name, Data: data}}, manifest.Options{Tolerate: l.tolerate})
	if err != nil {
		return manifest.Object{}, file, placeErrors(err, src)
	}
	if len(set.Objects) != 1 {
		return manifest.Object{}, file, fmt.Errorf("%s: kustomize rendered %d objects from one resource", name, len(set.Objects))
	}
	o := set.Objects[0]
	if src != nil {
		o = manifest.Rendered(o, src)
	}
	l.patchOrigins(&o, trans, tmp, ov, e, origName)
	return o, file, nil
}

// source is the object of the tree that a rendered object came from.
func (l *loader) source(abs, kind, name string, s *substitution) *manifest.Object {
	if abs == "" {
		return nil
	}
	var objs []*manifest.Object
	if _, ok := l.templates[abs]; ok {
		set := l.template(abs, s)
		if set == nil {
			return nil
		}
		for i := range set.Objects {
			objs = append(objs, &set.Objects[i])
		}
	} else {
		objs = l.byFile()[abs]
	}
	var only *manifest.Object
	n := 0
	for _, r := range objs {
		if r.Kind != kind {
			continue
		}
		if r.Name == name {
			return r
		}
		only = r
		n++
	}
	if n == 1 {
		return only
	}
	return nil
}

// placeErrors moves the decode errors of a rendered object to the file and lines where it
// was written.
func placeErrors(err error, src *manifest.Object) error {
	if src == nil {
		return err
	}
	var out []error
	for _, e := range unjoin(err) {
		var de *manifest.DecodeError
		if errors.As(e, &de) {
			c := *de
			c.File, c.Doc, c.Item, c.Line = src.Source.File, src.Source.Doc, src.Source.Item, src.Line(de.Field)
			out = append(out, &c)
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// touched reports whether a transformer of a build changed an object: kustomize lists a
// patch transformer on every object it ran over, so a patch counts only when it targets
// the object (one selecting by labels or annotations counts always).
func (l *loader) touched(trans resource.Transformations, tmp string, ov overlay, e *manifest.Object, kind string, names ...string) bool {
	for _, tr := range trans {
		switch tr.ConfiguredBy.Kind {
		case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		default:
			return true
		}
		for _, p := range l.patchesOf(tr, tmp, ov, e) {
			if p.applies(kind, names...) || (p.target != nil && (p.target.LabelSelector != "" || p.target.AnnotationSelector != "")) {
				return true
			}
		}
	}
	return false
}

// patchesOf are the patches of the kustomization a transformation was configured in.
func (l *loader) patchesOf(tr *resource.Origin, tmp string, ov overlay, e *manifest.Object) []patch {
	in := filepath.Clean(filepath.Join(tmp, tr.ConfiguredIn))
	if filepath.Dir(in) == tmp {
		if e == nil {
			return nil
		}
		var ps []patch
		for i, p := range ov.patches {
			ps = append(ps, patchesOf(e.Source.File, p.Patch, ov.patchLines[i], p.Target)...)
		}
		return ps
	}
	if k, ok := l.kusts[filepath.Dir(in)]; ok {
		return k.patches
	}
	return nil
}

// patchOrigins points the fields the patches of a build set at the patches' lines.
func (l *loader) patchOrigins(o *manifest.Object, trans resource.Transformations, tmp string, ov overlay, e *manifest.Object, origName string) {
	for _, tr := range trans {
		switch tr.ConfiguredBy.Kind {
		case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		default:
			continue
		}
		for _, p := range l.patchesOf(tr, tmp, ov, e) {
			if !p.applies(o.Kind, origName, o.Name) {
				continue
			}
			for _, f := range p.fields {
				f.File = l.rel(absPath(f.File))
				o.AddOrigin(f)
			}
		}
	}
}

// lineOf is the first line of text holding s, or 0.
func lineOf(text, s string) int {
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			return i + 1
		}
	}
	return 0
}

var _ = yaml.Node{}
