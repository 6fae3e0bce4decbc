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
func (d *digests) record(name string, data []byte) ([]manifest.Object, bool) {
	sum := sha256.Sum256(data)
	d.mu.Lock()
	d.m[filepath.Clean(name)] = sum
	d.mu.Unlock()
	return nil, false
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
func dirReuse(headPaths, basePaths []string, head *manifest.Set, sums *digests, limit int64) func(string, []byte) ([]manifest.Object, bool) {
	if len(headPaths) != 1 || len(basePaths) != 1 || head == nil {
		return nil
	}
	headDir, baseDir := headPaths[0], basePaths[0]
	for _, d := range []string{headDir, baseDir} {
		if fi, err := os.Stat(d); d == manifest.Stdin || err != nil || !fi.IsDir() {
			return nil
		}
	}
	byFile := objectsByFile(head.Objects, func(f string) string { return f })
	return func(name string, data []byte) ([]manifest.Object, bool) {
		rel, err := filepath.Rel(baseDir, name)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, false
		}
		headFile := filepath.Join(headDir, rel)
		objs, ok := byFile[headFile]
		if !ok {
			return nil, false
		}
		if sum, ok := sums.of(headFile); ok {
			return objs, sum == sha256.Sum256(data)
		}
		same, err := readFile(headFile, limit)
		if err != nil || !bytes.Equal(same, data) {
			return nil, false
		}
		return objs, true
	}
}

// objectsByFile groups objects by file (as key names it): a file's objects, which a load
// gives one after another, are a piece of objs, not a copy; the loader copies what it
// reuses.
func objectsByFile(objs []manifest.Object, key func(file string) string) map[string][]manifest.Object {
	by := map[string][]manifest.Object{}
	for i := 0; i < len(objs); {
		j := i + 1
		for j < len(objs) && objs[j].Source.File == objs[i].Source.File {
			j++
		}
		k := key(objs[i].Source.File)
		if prev, ok := by[k]; ok {
			by[k] = append(prev[:len(prev):len(prev)], objs[i:j]...) // not objs' own
		} else {
			by[k] = objs[i:j:j]
		}
		i = j
	}
	return by
}
