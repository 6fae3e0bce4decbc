package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func commit(plans []*filePlan) error {
	type staged struct {
		p   *filePlan
		tmp string
	}
	var done []staged
	var createdDirs []string
	cleanup := func() {
		for _, s := range done {
			os.Remove(s.tmp)
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
			cleanup()
			return err
		}
		tmp, err := writeTemp(dir, filepath.Base(p.real), p.out, p.mode)
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", p.path, err)
		}
		done = append(done, staged{p, tmp})
	}
	for i, s := range done {
		if err := os.Rename(s.tmp, s.p.real); err != nil {
			// Put back what was already replaced, then drop the rest.
			for _, r := range done[:i] {
				if r.p.exists {
					if t, err := writeTemp(filepath.Dir(r.p.real), filepath.Base(r.p.real), r.p.orig, r.p.mode); err == nil {
						os.Rename(t, r.p.real)
					}
				} else {
					os.Remove(r.p.real)
				}
			}
			done = done[i:]
			cleanup()
			return fmt.Errorf("write %s: %w", s.p.path, err)
		}
	}
	return nil
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
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, err
		}
		created = append(created, d)
	}
	return created, nil
}

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
