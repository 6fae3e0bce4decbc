package gitops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// build runs kustomize on dir with the entry's overlay (e may be nil), and decodes what it
// renders strictly, each object placed where it was written.
func (l *loader) build(dir string, ov overlay, e *manifest.Object) ([]manifest.Object, map[string]bool, error) {
	if !l.opts.kustomizeOnly {
		if objs, files, ok, err := l.direct(dir, ov, e); ok {
			l.opts.stats.add(true)
			return objs, files, err
		}
	}
	l.opts.stats.add(false)
	tmp, err := os.MkdirTemp("", "butler-render-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	k := types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Namespace: ov.namespace, NamePrefix: ov.prefix, NameSuffix: ov.suffix, Patches: ov.patches,
		BuildMetadata: []string{types.OriginAnnotations, types.TransformerAnnotations}, CommonAnnotations: ov.annotations}
	if len(ov.labels) > 0 {
		k.Labels = []types.Label{{Pairs: ov.labels}}
	}
	for _, c := range ov.components {
		r, err := filepath.Rel(tmp, filepath.Join(dir, c))
		if err != nil {
			return nil, nil, err
		}
		k.Components = append(k.Components, r)
	}
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
	m, err := runKustomize(filesys.MakeFsOnDisk(), tmp, k, l.annotationOps(ov, e))
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

// runKustomize writes k as tmp's kustomization and has kustomize build it. A build asks
// kustomize for origin and transformer annotations, which objects carry while the patches
// run: a JSON patch on metadata.annotations can succeed on them where the build Flux runs
// (without them) fails. With verify the build is also run as Flux runs it, and fails when
// that fails.
func runKustomize(fs filesys.FileSystem, tmp string, k types.Kustomization, verify bool) (resmap.ResMap, error) {
	run := func(k types.Kustomization) (resmap.ResMap, error) {
		data, err := sigsyaml.Marshal(k)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "kustomization.yaml"), data, 0o600); err != nil {
			return nil, err
		}
		opts := krusty.MakeDefaultOptions()
		opts.LoadRestrictions = types.LoadRestrictionsNone // as Flux builds
		return krusty.MakeKustomizer(opts).Run(fs, tmp)
	}
	m, err := run(k)
	if err != nil || !verify {
		return m, err
	}
	k.BuildMetadata = nil
	if _, err := run(k); err != nil {
		return nil, err
	}
	return m, nil
}

// annotationOps reports whether a JSON patch of the tree's kustomizations or of the
// entry's overlay reads or writes metadata.annotations, or a patch could not be read.
func (l *loader) annotationOps(ov overlay, e *manifest.Object) bool {
	if l.kustAnnotationOps == nil {
		found := false
		for _, k := range l.kusts {
			found = found || !k.allRead
			for _, p := range k.patches {
				found = found || p.annotationOp
			}
		}
		l.kustAnnotationOps = &found
	}
	if *l.kustAnnotationOps {
		return true
	}
	for _, p := range ov.patches {
		if e == nil {
			return true
		}
		ps := patchesOf(e.Source.File, p.Patch, 0, p.Target)
		if len(ps) == 0 {
			return true
		}
		for _, q := range ps {
			if q.annotationOp {
				return true
			}
		}
	}
	return false
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
	origName, origNamespace := res.GetName(), res.GetNamespace()
	ids := append(res.PrevIds(), res.CurId())
	if len(ids) > 1 {
		origName, origNamespace = ids[0].Name, ids[0].Namespace
	}
	src := l.source(file, res.GetKind(), origNamespace, origName, ov.subst)
	substitutes := ov.subst != nil && anns[substituteAnnotation] != "disabled"
	if _, tmpl := l.templates[file]; src != nil && !tmpl && !substitutes && res.GetName() == src.Name &&
		res.GetNamespace() == src.Namespace && res.GetApiVersion() == src.APIVersion && !l.touched(trans, tmp, ov, e, ids) {
		// Nothing transformed it: it is the object as written, decoded already. (Its id is
		// the one it was written with, so a patch that changed it selected that id.)
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
	rendered, err := set.All() // held whole: nothing is read again
	if err != nil || len(rendered) != 1 {
		return manifest.Object{}, file, fmt.Errorf("%s: kustomize rendered %d objects from one resource (%v)", name, len(rendered), err)
	}
	o := rendered[0]
	if src != nil {
		o = manifest.Rendered(o, src)
	}
	l.patchOrigins(&o, trans, tmp, ov, e, ids)
	return o, file, nil
}

// source is the object of the tree that a rendered object came from: by kind and name,
// and by namespace too when the file holds that name in several namespaces.
func (l *loader) source(abs, kind, namespace, name string, s *substitution) *manifest.Object {
	if abs == "" {
		return nil
	}
	var objs []*manifest.Object
	if _, ok := l.templates[abs]; ok {
		set := l.template(abs, s)
		if set == nil {
			return nil
		}
		var err error
		if objs, err = objectsOf(set); err != nil { // held whole: nothing is read again
			return nil
		}
	} else {
		objs = l.byFile()[abs]
	}
	var only, named *manifest.Object
	n, nNamed := 0, 0
	for _, r := range objs {
		if r.Kind != kind {
			continue
		}
		if r.Name == name {
			if r.Namespace == namespace {
				return r
			}
			named = r
			nNamed++
		}
		only = r
		n++
	}
	switch {
	case nNamed == 1:
		return named
	case nNamed == 0 && n == 1:
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
