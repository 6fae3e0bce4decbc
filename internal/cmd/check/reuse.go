package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// dirReuse is the base loader's Options.Reuse for --base-manifests when head and base are
// one directory each: a base file whose bytes are those of the file at the same place
// under head is head's objects, not decoded again, so that a change check costs the files
// the change touches (as --base does with git's help). Anything else is decoded.
func dirReuse(headPaths, basePaths []string, head *manifest.Set, limit int64) func(string, []byte) ([]manifest.Object, bool) {
	if len(headPaths) != 1 || len(basePaths) != 1 || head == nil {
		return nil
	}
	headDir, baseDir := headPaths[0], basePaths[0]
	for _, d := range []string{headDir, baseDir} {
		if fi, err := os.Stat(d); d == manifest.Stdin || err != nil || !fi.IsDir() {
			return nil
		}
	}
	byFile := map[string][]manifest.Object{}
	for _, o := range head.Objects {
		byFile[o.Source.File] = append(byFile[o.Source.File], o)
	}
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
		same, err := fileio.ReadFile(headFile, limit)
		if err != nil || !bytes.Equal(same, data) {
			return nil, false
		}
		return objs, true
	}
}
