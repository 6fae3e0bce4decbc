package gate

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// A pull request must never choose who judges it: under --base, a file that decides who
// the author is or which rules apply (the author map, the config file), when it is a file
// of the repository under review, is read as the base revision holds it. A change to it
// takes effect once it is merged. A file outside the repository is the CI's own and is
// read as it is (docs/ci-on-manifests.md).

// BaseCopy is revision rev's copy of path when path is a file of the git repository of
// the directory repo ("" the working directory), at most limit bytes: inRepo is false for
// a file outside it, which a change cannot touch; data is nil when the revision holds no
// such file. A symlink or a directory there is an error: the copy is read from git, which
// follows no links. What decides how a change is judged (an author map, a config file in
// the repository) is read so, as the base holds it.
func BaseCopy(ctx context.Context, repo, rev, path string, limit int64) (data []byte, inRepo bool, err error) {
	if strings.HasPrefix(rev, "-") {
		return nil, false, fmt.Errorf("--base %s: not a revision", rev)
	}
	ctx, cancel := context.WithTimeout(ctx, defaultGitTimeout)
	defer cancel()
	out, err := git(ctx, repo, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, false, err
	}
	top := strings.TrimSpace(string(out))
	rel, ok := repoPath(top, path)
	if !ok {
		return nil, false, nil
	}
	rel = filepath.ToSlash(rel)
	if out, err = git(ctx, top, nil, "ls-tree", "-z", rev, "--", rel); err != nil {
		return nil, true, err
	}
	meta, name, _ := strings.Cut(strings.TrimSuffix(string(out), "\x00"), "\t")
	f := strings.Fields(meta)
	switch {
	case len(f) != 3 || name != rel:
		return nil, true, nil // not in the base
	case f[0] == "120000":
		return nil, true, fmt.Errorf("%s is a symlink at %s: name the file it leads to", rel, rev)
	case f[1] != "blob":
		return nil, true, fmt.Errorf("%s is not a file at %s", rel, rev)
	}
	err = gitStream(ctx, top, func(r io.Reader) error {
		b, err := fileio.ReadAll(r, limit)
		data = append([]byte{}, b...) // not nil: an empty file is a file
		return err
	}, "cat-file", "blob", f[2])
	if err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// repoPath is path relative to the repository root top, and whether it is below it, as
// written or with symlinks resolved (a working directory reached through a link).
func repoPath(top, path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	if rel, ok := below(top, abs); ok {
		return rel, true
	}
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", false
	}
	realDir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", false
	}
	return below(realTop, filepath.Join(realDir, filepath.Base(abs)))
}

func below(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
