package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// How a write reaches the disk, so that a crash at any moment leaves each file either as
// it was or as it is meant to be, never empty or half-written:
//
//   - every new text goes to a temporary file beside its target (.NAME.tmp-*, hidden, so
//     the loader skips it), written and fsynced, with its final mode from the start;
//   - an existing file is replaced by renaming the temporary file over it;
//   - a new file is hard-linked into place, which fails if the name exists: two runs that
//     create the same file cannot both succeed, whatever else they checked first;
//   - the directories are fsynced, so the new names survive a power cut;
//   - on any error, the temporary files, the files already installed by this Write and
//     the directories it created are removed or put back.
//
// Only a kill between writing a temporary file and removing it can leave one behind.

// staged is a file written to its temporary name, not yet installed.
type staged struct {
	p         *filePlan
	tmp       string
	installed bool
}

func commit(plans []*filePlan) error {
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
	for _, p := range plans {
		if p.exists && string(p.out) == string(p.orig) {
			continue // nothing changed: leave the file and its time stamp alone
		}
		dir := filepath.Dir(p.real)
		dirs, err := mkdirAll(dir)
		createdDirs = append(createdDirs, dirs...)
		if err != nil {
			undo()
			return err
		}
		tmp, err := writeTemp(dir, filepath.Base(p.real), p.out, p.mode)
		if err != nil {
			undo()
			return fmt.Errorf("write %s: %w", p.path, err)
		}
		files = append(files, &staged{p: p, tmp: tmp})
	}
	for _, s := range files {
		if err := s.install(); err != nil {
			undo()
			return fmt.Errorf("write %s: %w", s.p.path, err)
		}
	}
	syncDirs(files)
	return nil
}

// install puts the temporary file in place: over the old file, or under a name that must
// not exist yet.
func (s *staged) install() error {
	if s.p.exists {
		if err := os.Rename(s.tmp, s.p.real); err != nil {
			return err
		}
		s.installed = true
		return nil
	}
	err := os.Link(s.tmp, s.p.real)
	switch {
	case err == nil:
		s.installed = true
		os.Remove(s.tmp)
		return nil
	case errors.Is(err, fs.ErrExist):
		return errors.New("the file already exists (it was created since the manifests were read)")
	}
	// No hard links on this file system: check, then rename (a narrow race, but never a
	// partial file).
	if _, lerr := os.Lstat(s.p.real); lerr == nil {
		return errors.New("the file already exists (it was created since the manifests were read)")
	}
	if err := os.Rename(s.tmp, s.p.real); err != nil {
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
	if !s.p.exists {
		os.Remove(s.p.real)
		return
	}
	if t, err := writeTemp(filepath.Dir(s.p.real), filepath.Base(s.p.real), s.p.orig, s.p.mode); err == nil {
		if os.Rename(t, s.p.real) != nil {
			os.Remove(t)
		}
	}
}

// syncDirs fsyncs the directories of the installed files, so their new names are on
// disk. Some file systems refuse to sync a directory; the files themselves are synced.
func syncDirs(files []*staged) {
	seen := map[string]bool{}
	for _, s := range files {
		dir := filepath.Dir(s.p.real)
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

// writeTemp writes data to a new hidden file in dir and fsyncs it. The file is created
// with mode 0600 and only then given mode, so data meant for 0600 is never readable by
// others, not even briefly.
func writeTemp(dir, base string, data []byte, mode fs.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, mode)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
