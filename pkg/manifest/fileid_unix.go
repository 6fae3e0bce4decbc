//go:build unix

package manifest

import (
	"io/fs"
	"syscall"
)

// idOf is the device and inode of what fi describes.
func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true // widths differ by platform
}
