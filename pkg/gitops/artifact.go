package gitops

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fluxcd/pkg/sourceignore"
)

// The copy of Flux's ArtifactGenerator (source-watcher), applied to views: an
// ExternalArtifact is built from its sources by copy operations, in order, a later one
// overwriting what an earlier one wrote, with cp's semantics for files, directories and
// globs. Messages are the controller's.

// copyOp is one of an output artifact's spec.artifacts[].copy.
type copyOp struct {
	From, To, Strategy string
	Exclude            []string
}

// Copy strategies; Merge (of YAML, when the destination exists) and Extract (of tarballs)
// make files no repository file holds: errUnrendered says the artifact is not rendered.
const (
	strategyMerge   = "Merge"
	strategyExtract = "Extract"
)

// errUnrendered is wrapped by buildArtifact's error for a copy the tools do not render.
var errUnrendered = errors.New("not rendered")

// buildArtifact applies ops to sources (by alias) and returns the artifact's tree, less
// what the controller's archive leaves out (its default excludes); on an error, the index
// of the operation that failed.
func buildArtifact(ops []copyOp, sources map[string]*view) (*view, int, error) {
	out := newView()
	for i, op := range ops {
		if err := applyCopy(op, sources, out); errors.Is(err, errUnrendered) {
			return nil, i, err
		} else if err != nil {
			return nil, i, fmt.Errorf("failed to apply copy operation from '%s' to '%s': %w", op.From, op.To, err)
		}
	}
	m := sourceignore.NewDefaultMatcher(nil, nil)
	kept := newView()
	for f, src := range out.files {
		if !m.Match(strings.Split(f, "/"), false) {
			kept.files[f] = src
			kept.addDir(path.Dir(f))
		}
	}
	for d := range out.dirs {
		if !m.Match(strings.Split(d, "/"), true) {
			kept.addDir(d)
		}
	}
	return kept, 0, nil
}

func applyCopy(op copyOp, sources map[string]*view, out *view) error {
	alias, pattern, ok := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
	switch {
	case !strings.HasPrefix(op.From, "@"):
		return fmt.Errorf("invalid copy source '%s': source must start with '@'", op.From)
	case !ok:
		return fmt.Errorf("invalid copy source '%s': source format must be '@alias/pattern'", op.From)
	case !strings.HasPrefix(op.To, "@artifact/"):
		return fmt.Errorf("invalid copy destination '%s': destination must start with '@artifact/'", op.To)
	}
	dest := strings.TrimPrefix(op.To, "@artifact/")
	src, found := sources[alias]
	if !found {
		return fmt.Errorf("source alias '%s' not found", alias)
	}
	for _, p := range op.Exclude {
		if _, err := doublestar.Match(p, "."); err != nil {
			return fmt.Errorf("invalid exclude pattern '%s'", p)
		}
	}
	if op.Strategy == strategyExtract {
		return fmt.Errorf("the Extract strategy (%s): %w", op.From, errUnrendered)
	}
	c := &copier{op: op, src: src, fsys: src.fsys(), out: out}
	if !strings.ContainsAny(pattern, "*?[]") {
		return c.single(path.Clean(pattern), dest, strings.HasSuffix(op.To, "/"))
	}
	matches, err := fs.Glob(c.fsys, pattern)
	if err != nil {
		return fmt.Errorf("invalid glob pattern '%s': %w", pattern, err)
	}
	if len(matches) == 0 {
		return fmt.Errorf("no files match pattern '%s' in source '%s'", pattern, alias)
	}
	base := selectionRoot(pattern)
	var kept []string
	for _, m := range matches {
		if m != "." && m != ".." && !excluded(m, base, op.Exclude) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("all files matching pattern '%s' in source '%s' were excluded", pattern, alias)
	}
	for _, m := range kept {
		if err := c.copy(m, globDestination(pattern, m, dest), base); err != nil {
			return fmt.Errorf("failed to copy file '%s' to '%s': %w", m, globDestination(pattern, m, dest), err)
		}
	}
	return nil
}

type copier struct {
	op   copyOp
	src  *view
	fsys fs.FS
	out  *view
}

// single copies a path without glob characters as cp does: a directory into dest (as
// dest/NAME), a file to dest, or into it when dest ends in a slash or is a directory.
func (c *copier) single(p, dest string, destIsDir bool) error {
	if err := escapes(p); err != nil {
		return fmt.Errorf("failed to stat source '%s': %w", p, err)
	}
	fi, err := fs.Stat(c.fsys, p)
	if err != nil {
		return fmt.Errorf("source '%s' does not exist", p)
	}
	if fi.IsDir() {
		return c.copy(p, path.Join(dest, path.Base(p)), p)
	}
	if excluded(p, ".", c.op.Exclude) {
		return nil
	}
	if destIsDir || c.out.dirs[path.Clean(dest)] {
		dest = path.Join(dest, path.Base(p))
	}
	return c.copy(p, dest, ".")
}

// copy copies a file, or a directory's tree less what the excludes match (against paths
// from the source root and from base, the pattern's literal prefix).
func (c *copier) copy(p, dest, base string) error {
	dest = path.Clean(dest)
	if !c.src.dirs[p] {
		if c.op.Strategy == strategyMerge && c.out.exists(dest) {
			return fmt.Errorf("the Merge strategy over %s: %w", dest, errUnrendered)
		}
		return c.out.write(dest, c.src.files[p])
	}
	return fs.WalkDir(c.fsys, p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(q, p), "/")
		if p == "." {
			rel = q
		}
		if q == p {
			return c.out.mkdir(dest)
		}
		if excluded(q, base, c.op.Exclude) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return c.out.mkdir(path.Join(dest, rel))
		}
		return c.out.write(path.Join(dest, rel), c.src.files[q])
	})
}

func (v *view) exists(p string) bool { return v.dirs[p] || v.files[p] != "" }

// escapes reports whether a destination leaves the artifact's root, which the
// controller's os.Root refuses.
func escapes(p string) error {
	if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return fmt.Errorf("%s: path escapes from parent", p)
	}
	return nil
}

// write puts a file in the tree, over the one there (a later copy wins).
func (v *view) write(p, src string) error {
	if err := escapes(p); err != nil {
		return err
	}
	if v.dirs[p] {
		return fmt.Errorf("open %s: is a directory", p)
	}
	if err := v.mkdir(path.Dir(p)); err != nil {
		return err
	}
	v.files[p] = src
	return nil
}

func (v *view) mkdir(p string) error {
	if err := escapes(p); err != nil {
		return err
	}
	for d := p; d != "." && d != ""; d = path.Dir(d) {
		if v.files[d] != "" {
			return fmt.Errorf("mkdir %s: not a directory", d)
		}
	}
	v.addDir(p)
	return nil
}

// globDestination is where a glob's match goes: below dest by its path from the source
// root, or from DIR for a pattern DIR/** (cp -r DIR/** dest/).
func globDestination(pattern, match, dest string) string {
	if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
		if rel, ok := strings.CutPrefix(match, prefix+"/"); ok {
			return path.Join(dest, rel)
		}
	}
	return path.Join(dest, match)
}

// selectionRoot is a pattern's literal prefix, before its first segment with a glob.
func selectionRoot(pattern string) string {
	var parts []string
	for _, s := range strings.Split(path.Clean(pattern), "/") {
		if strings.ContainsAny(s, "*?[]") {
			break
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "."
	}
	return path.Join(parts...)
}

// excluded reports whether an exclude pattern matches p from the source root, or from
// base; a pattern without a slash also matches the file name at any depth.
func excluded(p, base string, patterns []string) bool {
	if matchesAny(p, patterns) {
		return true
	}
	base, p = path.Clean(base), path.Clean(p)
	rel := p
	if base != "." && base != "" {
		r, ok := strings.CutPrefix(p, base+"/")
		if !ok {
			return false
		}
		rel = r
	}
	return rel != "." && rel != p && matchesAny(rel, patterns)
}

func matchesAny(p string, patterns []string) bool {
	for _, pat := range patterns {
		if doublestar.MatchUnvalidated(pat, p) ||
			(!strings.Contains(pat, "/") && doublestar.MatchUnvalidated(pat, path.Base(p))) {
			return true
		}
	}
	return false
}
