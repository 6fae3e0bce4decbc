package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds how many symlinks Open follows, as the kernel does (ELOOP).
const maxLinks = 40

// File is a file about to be written: where the name leads and what is there now.
type File struct {
	Path   string      // as the caller named it, for messages
	Real   string      // the file written: every symlink resolved
	Exists bool        // a regular file is there now
	Mode   fs.FileMode // kept for an existing file; the caller's choice for a new one
	Orig   []byte      // the text read by Open (nil when not asked to read)

	owner owner // of an existing file, given back to its replacement
}

// Open resolves path for a write: symlinks are followed to the file they lead to (also a
// dangling one: the file is created where it points), and anything there but a regular
// file is refused with ErrNotRegular, naming what it is, and left untouched. newMode is
// the mode of a file that does not exist yet. With limit > 0 the current text is read
// (bounded) into Orig.
func Open(path string, newMode fs.FileMode, limit int64) (*File, error) {
	real, st, err := resolve(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Real: real, Mode: newMode.Perm()}
	if st == nil {
		return f, nil
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w: it is %s; only a regular file is written", ErrNotRegular, KindOf(st.Mode()))}
	}
	f.Exists, f.Mode, f.owner = true, st.Mode().Perm(), ownerOf(st)
	if limit > 0 {
		if f.Orig, err = ReadFile(real, limit); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// resolve follows path's symlinks one by one, so that a dangling link still names the
// file to create; the FileInfo of what is at the end (nil when nothing is).
func resolve(path string) (string, fs.FileInfo, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if errors.Is(err, fs.ErrNotExist) {
			dir, err = filepath.Dir(p), nil // created by the write, no links in it yet
		}
		if err != nil {
			return "", nil, err
		}
		p = filepath.Join(dir, filepath.Base(p))
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, nil, nil
		case err != nil:
			return "", nil, err
		case st.Mode()&fs.ModeSymlink == 0:
			return p, st, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		p = t
	}
	return "", nil, &fs.PathError{Op: "write", Path: path, Err: errors.New("too many levels of symbolic links")}
}

// Change is a new text for a File opened by Open.
type Change struct {
	File *File
	Data []byte
}

// Commit writes every change or none: each text goes to a hidden temporary file beside
// its target (.NAME.tmp-*), created 0600, fsynced, then given the target's owner, group
// and mode; an existing file is then replaced by a rename, a new one hard-linked into
// place (which fails if the name was taken meanwhile), and the directories are fsynced.
// On any error the files already installed are put back and the directories it made
// removed. A change whose text is the file's (Orig) leaves the file alone.
func Commit(changes []Change) error {
	var files []*staged
	var createdDirs []string
	undo := func() {
		for i := len(files) - 1; i >= 0; i-- {
			files[i].undo()
		}
		for i := len(createdDirs) - 1; i >= 0; i-- {
			os.Remove(createdDirs[i])
		}
	}
	for _, c := range changes {
		f := c.File
		if f.Exists && f.Orig != nil && string(c.Data) == string(f.Orig) {
			continue // nothing changed: leave the file and its time stamp alone
		}
		dir := filepath.Dir(f.Real)
		dirs, err := mkdirAll(dir)
		createdDirs = append(createdDirs, dirs...)
		if err != nil {
			undo()
			return err
		}
		tmp, err := writeTemp(f, c.Data)
		if err != nil {
			undo()
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		files = append(files, &staged{f: f, tmp: tmp})
	}
	for _, s := range files {
		if err := s.install(); err != nil {
			undo()
			return fmt.Errorf("write %s: %w", s.f.Path, err)
		}
	}
	syncDirs(files)
	return nil
}

// ErrExists is returned by Commit when a file it was to create appeared meanwhile.
var ErrExists = errors.New("the file already exists (it was created since it was read)")

// staged is a file written to its temporary name, not yet installed.
type staged struct {
	f         *File
	tmp       string
	installed bool
}

// install puts the temporary file in place: over the old file, or under a name that must
// not exist yet.
func (s *staged) install() error {
	if s.f.Exists {
		if err := os.Rename(s.tmp, s.f.Real); err != nil {
			return err
		}
		s.installed = true
		return nil
	}
	err := os.Link(s.tmp, s.f.Real)
	switch {
	case err == nil:
		s.installed = true
		os.Remove(s.tmp)
		return nil
	case errors.Is(err, fs.ErrExist):
		return ErrExists
	}
	// No hard links on this file system: check, then rename (a narrow race, but never a
	// partial file).
	if _, lerr := os.Lstat(s.f.Real); lerr == nil {
		return ErrExists
	}
	if err := os.Rename(s.tmp, s.f.Real); err != nil {
		return err
	}
	s.installed = true
	return nil
}

// undo removes the temporary file and takes back an installed one: a new file goes, an
// old one gets its previous text again (atomically, as it was replaced).
func (s *staged) undo() {
	os.Remove(s.tmp)
	if !s.installed {
		return
	}
	if !s.f.Exists {
		os.Remove(s.f.Real)
		return
	}
	if s.f.Orig == nil {
		return // not read: nothing to put back
	}
	if t, err := writeTemp(s.f, s.f.Orig); err == nil {
		if os.Rename(t, s.f.Real) != nil {
			os.Remove(t)
		}
	}
}

// syncDirs fsyncs the directories of the installed files, so their new names are on
// disk. Some file systems refuse to sync a directory; the files themselves are synced.
func syncDirs(files []*staged) {
	seen := map[string]bool{}
	for _, s := range files {
		dir := filepath.Dir(s.f.Real)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
}

// mkdirAll creates dir and returns the directories it created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue // made meanwhile by someone else: not ours to remove
			}
			return created, err
		}
		created = append(created, d)
	}
	return created, nil
}

// writeTemp writes data to a new hidden file beside f and fsyncs it. The file is created
// 0600 and only then given f's owner, group and mode, so data meant for 0600 is never
// readable by others, not even briefly. An owner or group it cannot give (a file of
// another user's) fails the write rather than change who owns the file.
func writeTemp(f *File, data []byte) (string, error) {
	tf, err := os.CreateTemp(filepath.Dir(f.Real), "."+filepath.Base(f.Real)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := tf.Name()
	_, err = tf.Write(data)
	if err == nil && f.Exists {
		if err = f.owner.give(tf); err != nil {
			err = fmt.Errorf("cannot keep its owner and group (%v); nothing was written", err)
		}
	}
	if err == nil {
		err = tf.Chmod(f.Mode)
	}
	if err == nil {
		err = tf.Sync()
	}
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
