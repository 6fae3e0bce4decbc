package gate

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// digests are the SHA-256 of each file a load read, by path as read: recorded by the head
// load (as its Options.Reuse, which reuses nothing), so that the base load compares each of
// its files with head's without reading head's again.
type digests struct {
	mu sync.Mutex
	m  map[string][sha256.Size]byte
}

func newDigests() *digests { return &digests{m: map[string][sha256.Size]byte{}} }

// record is a manifest.Options.Reuse that records and reuses nothing.
func (d *digests) record(name string, data []byte) (manifest.FileObjects, bool) {
	sum := sha256.Sum256(data)
	d.mu.Lock()
	d.m[filepath.Clean(name)] = sum
	d.mu.Unlock()
	return manifest.FileObjects{}, false
}

func (d *digests) of(name string) ([sha256.Size]byte, bool) {
	if d == nil {
		return [sha256.Size]byte{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	sum, ok := d.m[filepath.Clean(name)]
	return sum, ok
}

// dirReuse is the base loader's Options.Reuse for --base-manifests when head and base are
// one directory each: a base file whose bytes are those of the file at the same place
// under head is head's objects, not decoded again, so that a change check costs the files
// the change touches (as --base does with git's help). Head's bytes are known by their
// digest when the head load recorded one (sums may be nil), else read again. Anything
// else is decoded.
func dirReuse(headPaths, basePaths []string, head *manifest.Set, sums *digests, limit int64) func(string, []byte) (manifest.FileObjects, bool) {
	if len(headPaths) != 1 || len(basePaths) != 1 || head == nil {
		return nil
	}
	headDir, baseDir := headPaths[0], basePaths[0]
	for _, d := range []string{headDir, baseDir} {
		if fi, err := os.Stat(d); d == manifest.Stdin || err != nil || !fi.IsDir() {
			return nil
		}
	}
	byFile := head.ByFile(func(f string) string { return f })
	return func(name string, data []byte) (manifest.FileObjects, bool) {
		rel, err := filepath.Rel(baseDir, name)
		if err != nil || strings.HasPrefix(rel, "..") {
			return manifest.FileObjects{}, false
		}
		headFile := filepath.Join(headDir, rel)
		objs, ok := byFile[headFile]
		if !ok {
			return manifest.FileObjects{}, false
		}
		if sum, ok := sums.of(headFile); ok {
			return objs, sum == sha256.Sum256(data)
		}
		same, err := readFile(headFile, limit)
		if err != nil || !bytes.Equal(same, data) {
			return manifest.FileObjects{}, false
		}
		return objs, true
	}
}
