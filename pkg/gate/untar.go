package gate

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// untar extracts a tar stream of git archive: regular files, directories and symlinks.
// link, when it returns true, has put a regular file (name as archived, size bytes) at p
// itself; the archive's bytes are then not written.
func untar(in io.Reader, dest string, link func(name string, size int64, p string) bool) error {
	tr := tar.NewReader(in)
	var total int64
	made := map[string]bool{} // directories made, so that each file does not stat its own
	mkdir := func(d string) error {
		if made[d] {
			return nil
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		made[d] = true
		return nil
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("git archive: %v", err)
		}
		name := filepath.Clean(h.Name)
		if name == "." || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		p := filepath.Join(dest, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := mkdir(p); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := mkdir(filepath.Dir(p)); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += h.Size; total > maxArchiveBytes {
				return fmt.Errorf("the repository at that revision is larger than %s", fileio.Size(maxArchiveBytes))
			}
			if err := mkdir(filepath.Dir(p)); err != nil {
				return err
			}
			if link != nil && link(name, h.Size, p) {
				continue
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
