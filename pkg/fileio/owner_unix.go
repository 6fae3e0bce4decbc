//go:build unix

package fileio

import (
	"io/fs"
	"os"
	"syscall"
)

// owner is the user and group of a file.
type owner struct {
	uid, gid int
	known    bool
}

func ownerOf(st fs.FileInfo) owner {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}
	}
	return owner{uid: int(s.Uid), gid: int(s.Gid), known: true}
}

// give makes o the owner of f, if it is not already.
func (o owner) give(f *os.File) error {
	if !o.known {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if ownerOf(st) == o {
		return nil
	}
	return f.Chown(o.uid, o.gid)
}
