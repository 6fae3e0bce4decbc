package gitops

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// view is a file tree one of Flux's controllers holds (a GitRepository's archive, an
// ExternalArtifact an ArtifactGenerator builds), as the repository files it holds: no
// file is copied until the tree is rendered.
type view struct {
	files map[string]string // slash path in the tree → absolute path of the repository file
	dirs  map[string]bool   // its directories, "." included
}

func newView() *view { return &view{files: map[string]string{}, dirs: map[string]bool{".": true}} }

// sourceView is a source tree as a view.
func (t *sourceTree) view() *view {
	v := newView()
	for rel := range t.files {
		v.files[rel] = filepath.Join(t.root, filepath.FromSlash(rel))
	}
	for d := range t.dirs {
		v.dirs[d] = true
	}
	return v
}

func (v *view) addDir(rel string) {
	for ; rel != "." && rel != "" && !v.dirs[rel]; rel = path.Dir(rel) {
		v.dirs[rel] = true
	}
}

// fsys is the view as an fs.FS that lists and stats (what globbing and walking need); it
// opens nothing.
func (v *view) fsys() fs.FS {
	t := &viewFS{v: v, entries: map[string][]fs.DirEntry{}}
	for d := range v.dirs {
		if d != "." {
			t.entries[path.Dir(d)] = append(t.entries[path.Dir(d)], entry{name: path.Base(d), dir: true})
		}
	}
	for f := range v.files {
		t.entries[path.Dir(f)] = append(t.entries[path.Dir(f)], entry{name: path.Base(f)})
	}
	for _, es := range t.entries {
		sort.Slice(es, func(i, j int) bool { return es[i].Name() < es[j].Name() })
	}
	return t
}

type viewFS struct {
	v       *view
	entries map[string][]fs.DirEntry
}

func (t *viewFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
}

func (t *viewFS) Stat(name string) (fs.FileInfo, error) {
	switch {
	case !fs.ValidPath(name):
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	case t.v.dirs[name]:
		return entry{name: path.Base(name), dir: true}, nil
	case t.v.files[name] != "":
		return entry{name: path.Base(name)}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (t *viewFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) || !t.v.dirs[name] {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return t.entries[name], nil
}

// entry is a view's file or directory, as fs.DirEntry and fs.FileInfo.
type entry struct {
	name string
	dir  bool
}

func (e entry) Name() string               { return e.name }
func (e entry) IsDir() bool                { return e.dir }
func (e entry) Type() fs.FileMode          { return e.Mode().Type() }
func (e entry) Info() (fs.FileInfo, error) { return e, nil }
func (e entry) Size() int64                { return 0 }
func (e entry) ModTime() time.Time         { return time.Time{} }
func (e entry) Sys() any                   { return nil }
func (e entry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

// below lists the view's files below dir (slash, "." for all), sorted.
func (v *view) below(dir string) []string {
	var out []string
	for f := range v.files {
		if dir == "." || strings.HasPrefix(f, dir+"/") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
