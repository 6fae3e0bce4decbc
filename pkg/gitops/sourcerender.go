package gitops

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// errNotRendered: the entry's source is not rendered, and the tree says so already.
var errNotRendered = errors.New("not rendered")

// buildEntry renders an entry's path from its source: for a Flux Kustomization, the
// artifact its source holds (this repository less what its ignore rules exclude, or an
// ExternalArtifact built from it); for an Argo CD Application, the repository.
func (l *loader) buildEntry(e *manifest.Object, t *Tree, p, field string, ov overlay) ([]manifest.Object, map[string]bool, error) {
	if !isFluxKustomization(e) {
		dir, ok := l.resolveDir(p)
		if !ok {
			return nil, nil, entryError(e, field, fmt.Sprintf("%q is not a directory of this repository", p))
		}
		if l.remote(e, dir, field, t) {
			return nil, nil, errNotRendered
		}
		return l.build(dir, ov, e)
	}
	s := fluxSource(e)
	if s.kind == "ExternalArtifact" {
		return l.buildFromArtifact(e, t, s, p, ov)
	}
	root, dir, ok := l.resolveRoot(p)
	if !ok {
		return nil, nil, entryError(e, field, fmt.Sprintf("%q is not a directory of this repository", p))
	}
	st, err := l.sourceTree(root, l.gitIgnoreSpec(s))
	if err != nil {
		return nil, nil, entryError(e, "spec.sourceRef", err.Error())
	}
	rel := slashRel(root, dir)
	if !st.dirs[rel] {
		return nil, nil, entryError(e, field, fmt.Sprintf("kustomization path not found: stat %s: no such file or directory "+
			"(the ignore rules of %s, its .sourceignore files and spec.ignore, leave it out of the artifact)", p, s))
	}
	if l.remote(e, dir, field, t) {
		return nil, nil, errNotRendered
	}
	objs, files, err := l.build(dir, ov, e)
	if !st.touches(rel, files) {
		return objs, files, err
	}
	// The rules leave out a file the build may read: render the artifact as Flux holds it.
	return l.renderView(st.view(), rel, ov, e)
}

// touches reports whether the rules exclude a file below dir, or beside a file a build
// applied (a base's kustomization, a patch).
func (t *sourceTree) touches(dir string, files map[string]bool) bool {
	if len(t.ignored) == 0 {
		return false
	}
	if t.ignoredBelow(dir) {
		return true
	}
	for f := range files {
		if r := slashRel(t.root, f); t.isIgnored(r) || t.ignoredBelow(path.Dir(r)) {
			return true
		}
	}
	return false
}

// sourceTree reads a source tree once per root and rules.
func (l *loader) sourceTree(root, spec string) (*sourceTree, error) {
	key := root + "\x00" + spec
	if st, ok := l.trees[key]; ok {
		return st, nil
	}
	st, err := readSourceTree(root, spec)
	if err != nil {
		return nil, err
	}
	if l.trees == nil {
		l.trees = map[string]*sourceTree{}
	}
	l.trees[key] = st
	return st, nil
}

// resolveRoot is resolveDir with the root the path was found below.
func (l *loader) resolveRoot(p string) (root, dir string, ok bool) {
	for _, r := range l.root {
		d := filepath.Join(r, p)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return r, d, true
		}
	}
	return "", "", false
}

func slashRel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// renderView renders the directory rel of a view as the entry's controller does: the
// view's files are copied to a temporary directory (removed after), read there as a tree
// of their own, and what renders names the repository files again, at the same lines.
func (l *loader) renderView(v *view, rel string, ov overlay, e *manifest.Object) ([]manifest.Object, map[string]bool, error) {
	tmp, err := os.MkdirTemp("", "butler-artifact-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	back, err := v.materialize(tmp, l.opts.Manifest.MaxFileBytes)
	if err != nil {
		return nil, nil, entryError(e, "spec.sourceRef", err.Error())
	}
	sub, err := l.subLoader(tmp)
	if err != nil {
		return nil, nil, l.mapError(err, tmp, back)
	}
	objs, files, err := sub.build(filepath.Join(tmp, filepath.FromSlash(rel)), ov, e)
	name := func(f string) string {
		if r, ok := back[sub.abs(f)]; ok {
			return l.rel(r)
		}
		return f
	}
	for i := range objs {
		objs[i].MapFiles(name)
	}
	out := map[string]bool{}
	for f := range files {
		if r, ok := back[f]; ok {
			out[r] = true
		}
	}
	if err != nil {
		return nil, nil, l.mapError(err, tmp, back)
	}
	return objs, out, nil
}

// materialize copies the view's files below dir (each read within limit, all within
// maxArtifactBytes) and returns, by the copy's absolute path, the repository file.
func (v *view) materialize(dir string, limit int64) (map[string]string, error) {
	if limit <= 0 {
		limit = manifest.DefaultMaxFileBytes
	}
	back := map[string]string{}
	dirs := make([]string, 0, len(v.dirs))
	for d := range v.dirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o700); err != nil {
			return nil, err
		}
	}
	var total int64
	for _, f := range v.below(".") {
		data, err := fileio.ReadFile(v.files[f], limit)
		if err != nil {
			return nil, err
		}
		if total += int64(len(data)); total > maxArtifactBytes {
			return nil, fmt.Errorf("the artifact holds more than %d bytes: not rendered", maxArtifactBytes)
		}
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return nil, err
		}
		back[dst] = v.files[f]
	}
	return back, nil
}

// subLoader reads dir as a tree of its own, as load does before it renders: its
// kustomizations, templates and objects.
func (l *loader) subLoader(dir string) (*loader, error) {
	opts := l.opts
	opts.Root, opts.Sources = "", nil
	s := &loader{opts: opts, kusts: map[string]*kustomization{}, manyKusts: map[string]bool{}, display: map[string]string{},
		templates: map[string]manifest.File{}, substituted: map[templateKey]*manifest.Set{}, tolerate: l.tolerate,
		wd: l.wd, root: []string{dir}, rendered: map[*manifest.Object]*output{}}
	files, _ := manifest.Walk([]string{dir}, opts.Manifest)
	skip, errs := s.scan(files, &Tree{Recognised: map[string]int{}, NotRendered: map[string]int{}}, opts.Manifest)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	mo := opts.Manifest
	mo.Skip, mo.AllowDuplicates, mo.Tolerate = s.skipper(skip), true, l.tolerate
	raw, err := manifest.LoadWith([]string{dir}, nil, mo)
	if err != nil {
		return nil, err
	}
	s.raw = raw
	// Read whole now, while dir is there: the render that follows takes them so.
	if s.all, err = objectsOf(raw); err != nil {
		return nil, err
	}
	return s, nil
}

// mapError names the repository files in the errors of a render of a copy below tmp.
func (l *loader) mapError(err error, tmp string, back map[string]string) error {
	var out []error
	for _, e := range flatten(err) {
		var de *manifest.DecodeError
		if errors.As(e, &de) {
			c := *de
			if r, ok := back[l.abs(c.File)]; ok {
				c.File = l.rel(r)
			}
			c.Msg = stripDir(c.Msg, tmp, l.rel(tmp))
			out = append(out, &c)
			continue
		}
		out = append(out, errors.New(stripDir(e.Error(), tmp, l.rel(tmp))))
	}
	return errors.Join(out...)
}

// stripDir makes the paths below a temporary directory relative to it in a message.
func stripDir(msg string, dirs ...string) string {
	for _, d := range dirs {
		msg = strings.ReplaceAll(msg, d+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, d, ".")
	}
	return msg
}
