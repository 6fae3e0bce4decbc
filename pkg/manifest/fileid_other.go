//go:build !unix

package manifest

import "io/fs"

// idOf: a FileInfo of another system carries no file identity, so every path read counts
// as a file of its own (symlinks there need privileges to make).
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
