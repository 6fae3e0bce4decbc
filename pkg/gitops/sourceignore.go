package gitops

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Bounds of a source tree: a repository past them is refused, not half read.
const (
	maxSourceFiles   = 200_000
	maxIgnoreBytes   = 1 << 20
	maxArtifactBytes = manifest.DefaultMaxTotalBytes
)

// sourceTree is a repository as Flux's source-controller archives it for a GitRepository:
// its regular files less those the ignore rules exclude. The rules are source-controller's:
// every .sourceignore of the tree (each relative to its own directory, the root's first,
// then the subdirectories' in lexical order), then the GitRepository's spec.ignore; with
// none of them, the controller's default excludes (VCS files, CI folders, images and
// archives), else only the VCS files. Symbolic links are not archived.
type sourceTree struct {
	root  string          // absolute
	files map[string]bool // kept regular files, slash paths relative to root
	dirs  map[string]bool // directories the archive holds, "." included
	// ignored are the regular files the rules exclude, sorted.
	ignored []string
}

// sourceMatcher is the matcher source-controller archives with: the patterns after the
// VCS ones, or its defaults when there are none.
func sourceMatcher(ps []gitignore.Pattern) gitignore.Matcher {
	if len(ps) == 0 {
		return sourceignore.NewDefaultMatcher(nil, nil)
	}
	return sourceignore.NewMatcher(append(sourceignore.VCSPatterns(nil), ps...))
}

// ignorePatterns reads the .sourceignore files below root, each scoped to its directory,
// and then spec (a GitRepository's spec.ignore, "" for none). Directories named .git are
// not entered, as source-controller does not. negates reports whether a rule includes
// again what an earlier one excludes.
func ignorePatterns(root, spec string) (ps []gitignore.Pattern, negates bool, err error) {
	read := func(text []byte, domain []string) {
		ps = append(ps, sourceignore.ReadPatterns(bytes.NewReader(text), domain)...)
		for _, line := range strings.Split(string(text), "\n") {
			negates = negates || strings.HasPrefix(strings.TrimSpace(line), "!")
		}
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" && p != root {
			return filepath.SkipDir
		}
		f := filepath.Join(p, sourceignore.IgnoreFile)
		data, err := fileio.ReadFile(f, maxIgnoreBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		read(data, domainOf(root, p))
		return nil
	})
	read([]byte(spec), nil)
	return ps, negates, err
}

// domainOf is a directory's path below root as gitignore scopes a pattern: its parts.
func domainOf(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// readSourceTree walks root and keeps what the matcher of its ignore rules keeps. Each
// entry is matched on its own, as the controller's archive walk does: an excluded
// directory's files are kept where a later pattern includes them again.
func readSourceTree(root, spec string) (*sourceTree, error) {
	ps, negates, err := ignorePatterns(root, spec)
	if err != nil {
		return nil, fmt.Errorf("reading the ignore rules of %s: %w", root, err)
	}
	m := sourceMatcher(ps)
	t := &sourceTree{root: root, files: map[string]bool{}, dirs: map[string]bool{".": true}}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && !negates {
			return filepath.SkipDir // every file below matches the VCS patterns, and no rule includes one again
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		rel := filepath.ToSlash(p[len(root)+1:])
		if len(t.files)+len(t.ignored) >= maxSourceFiles {
			return fmt.Errorf("more than %d files: not read as a Flux source", maxSourceFiles)
		}
		switch {
		case m.Match(strings.Split(rel, "/"), d.IsDir()):
			if !d.IsDir() {
				t.ignored = append(t.ignored, rel)
			}
		case d.IsDir():
			t.addDir(rel)
		default:
			t.files[rel] = true
			t.addDir(path.Dir(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	sort.Strings(t.ignored)
	return t, nil
}

// addDir records a directory and its parents: extracting a file creates them.
func (t *sourceTree) addDir(rel string) {
	for ; rel != "." && !t.dirs[rel]; rel = path.Dir(rel) {
		t.dirs[rel] = true
	}
}

// ignoredBelow reports whether the rules exclude a file below dir (slash, relative).
func (t *sourceTree) ignoredBelow(dir string) bool {
	if dir == "." {
		return len(t.ignored) > 0
	}
	i := sort.SearchStrings(t.ignored, dir+"/")
	return i < len(t.ignored) && strings.HasPrefix(t.ignored[i], dir+"/")
}

// isIgnored reports whether the rules exclude a file (slash, relative).
func (t *sourceTree) isIgnored(rel string) bool {
	i := sort.SearchStrings(t.ignored, rel)
	return i < len(t.ignored) && t.ignored[i] == rel
}
