package manifest

import (
	"os"
	"path/filepath"
)

// LinkedDirs are the directories, symlinks resolved, that a Load of paths reaches through
// a symlink: the target of a linked directory, and the directory holding a linked file.
// A lock on the named trees alone would not cover them: two trees that share a directory
// through links must lock it too, or their runs edit its files unaware of each other. The
// walk is Load's (hidden entries skipped, every link followed, each directory once); what
// cannot be read is left out here, and reported by Load. The paths returned are absolute.
func LinkedDirs(paths []string) []string {
	w := &dirWalk{seen: map[string]bool{}}
	for _, p := range paths {
		if p == Stdin {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		p = abs // what is returned is absolute, as locks compare names
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&os.ModeSymlink != 0 {
			w.link(p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if st, err := os.Stat(real); err == nil && st.IsDir() {
				w.walk(real)
			}
		}
	}
	return w.linked
}

type dirWalk struct {
	seen   map[string]bool // real directories walked
	linked []string
	added  map[string]bool
}

// link records the real directory a symlink leads to (or holds the file it leads to).
func (w *dirWalk) link(p string) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return
	}
	st, err := os.Stat(real)
	if err != nil {
		return
	}
	if !st.IsDir() {
		real = filepath.Dir(real)
	}
	if w.added == nil {
		w.added = map[string]bool{}
	}
	if !w.added[real] {
		w.added[real] = true
		w.linked = append(w.linked, real)
	}
}

// walk visits real directory dir and, through links, every directory Load would read.
func (w *dirWalk) walk(dir string) {
	if w.seen[dir] {
		return
	}
	w.seen[dir] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if toolDir(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			w.link(p)
			if real, err := filepath.EvalSymlinks(p); err == nil {
				if st, err := os.Stat(real); err == nil && st.IsDir() {
					w.walk(real)
				}
			}
		case e.IsDir():
			w.walk(p)
		}
	}
}
