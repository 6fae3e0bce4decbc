package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// IgnoreFile is the file at the root of a directory given to a Load whose patterns leave
// paths below it out of the walk, as --exclude's do: YAML that is no manifest, a folder of
// drafts. The syntax is .gitignore's (and Flux's .sourceignore's): a pattern with a slash
// is anchored to the directory, ** matches any number of folders, a trailing slash
// matches folders only, ! takes a path back in.
const IgnoreFile = ".butlerignore"

// MaxIgnoreBytes bounds an ignore file: a list of patterns.
const MaxIgnoreBytes = 1 << 20

// ignore is the matcher of one directory given to a Load.
type ignore struct {
	root    string
	matcher gitignore.Matcher
}

// ignoreFor reads the patterns that apply below root, a directory given: its IgnoreFile
// (or Options.IgnoreFile's copy of it), then Options.Exclude, which come last and so win.
// nil when there are none.
func (r *reader) ignoreFor(root string) *ignore {
	var data []byte
	var found bool
	var err error
	if r.opts.IgnoreFile != nil {
		data, found, err = r.opts.IgnoreFile(root)
	} else {
		data, found, err = ReadIgnoreFile(root)
	}
	if err != nil {
		r.fail("%s: %v", filepath.Join(root, IgnoreFile), err)
		return nil
	}
	var lines []string
	if found {
		lines = ignoreLines(data)
	}
	lines = append(lines, r.opts.Exclude...)
	if len(lines) == 0 {
		return nil
	}
	ps := make([]gitignore.Pattern, len(lines))
	for i, l := range lines {
		ps[i] = gitignore.ParsePattern(l, nil)
		if !slices.Contains(r.patterns, l) {
			r.patterns = append(r.patterns, l)
		}
	}
	return &ignore{root: root, matcher: gitignore.NewMatcher(ps)}
}

// ReadIgnoreFile reads dir's IgnoreFile; found is false when it has none.
func ReadIgnoreFile(dir string) (data []byte, found bool, err error) {
	data, err = fileio.ReadFile(filepath.Join(dir, IgnoreFile), MaxIgnoreBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, fileio.ErrTooLarge):
		return nil, false, fmt.Errorf("larger than %s (the limit for an ignore file)", fileio.Size(MaxIgnoreBytes))
	case err != nil:
		return nil, false, pathErrorText(err)
	}
	return data, true, nil
}

// pathErrorText is pathError's wording of err without a path: the caller names it.
func pathErrorText(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrPermission) {
		return errors.New("permission denied")
	}
	return err
}

// ignoreLines are the patterns of an ignore file: a line each, blank lines and comments
// (#) left out, as git reads .gitignore.
func ignoreLines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxIgnoreBytes+1)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// excludes reports whether the walk leaves p (below the directory given) out, and records
// it for Set.Excluded.
func (r *reader) excludes(p string, isDir bool) bool {
	if r.ign == nil {
		return false
	}
	rel, err := filepath.Rel(r.ign.root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	if !r.ign.matcher.Match(strings.Split(filepath.ToSlash(rel), "/"), isDir) {
		return false
	}
	r.excluded = append(r.excluded, p)
	return true
}

// excludesLink is excludes for a symlink that does not resolve: it is left out if it would
// be as a file or as a folder, so that an excluded path never fails the walk.
func (r *reader) excludesLink(p string) bool {
	return r.excludes(p, false) || r.excludes(p, true)
}
