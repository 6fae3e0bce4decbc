package gate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// maxArchiveBytes bounds the base tree --base extracts: the whole repository at REF, of
// which the loader then reads its manifests within its own limits.
const maxArchiveBytes = 1 << 30

// repo is the git repository --base reads, and the base tree extracted from it.
type repo struct {
	top, prefix string // the repository root; the working directory below it ("a/b/")
	tmp         string // the base tree at REF
	// basePaths are --manifests as they are in the base tree; baseRoot is the base
	// tree's repository root.
	basePaths []string
	baseRoot  string
	// changed are the paths (relative to top) git finds different between the revision
	// and the working tree.
	changed map[string]bool
	// realDirs are directories of the working tree with symlinks resolved (realPath),
	// asked for on the loader's workers.
	mu       sync.Mutex
	realDirs map[string]string
}

// openRepo extracts the tree of rev (its files, and its submodules' at the commits it
// records) into tmp, a new empty directory that close removes (the caller removes it when
// openRepo fails), so that the base is read
// by exactly the loader the head is read by: symlinks, submodules, subdirectories and
// overlapping paths behave the same on both sides.
func openRepo(ctx context.Context, dir, rev, tmp string, paths []string) (*repo, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("not a revision")
	}
	top, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	prefix, err := workPrefix(ctx, dir, strings.TrimSpace(string(top)))
	if err != nil {
		return nil, err
	}
	r := &repo{top: strings.TrimSpace(string(top)), prefix: strings.TrimSpace(string(prefix)), tmp: tmp, realDirs: map[string]string{}}
	if _, err := git(ctx, dir, nil, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		shallow, _ := git(ctx, dir, nil, "rev-parse", "--is-shallow-repository")
		if strings.TrimSpace(string(shallow)) == "true" {
			return nil, fmt.Errorf("this clone is shallow and does not hold that revision: fetch the history (actions/checkout with fetch-depth: 0, or git fetch --deepen=N) and try again")
		}
		return nil, fmt.Errorf("no such revision in this repository")
	}
	if r.changed, err = changedFiles(ctx, r.top, rev); err != nil {
		return nil, err
	}
	if err := r.extract(ctx, "", rev); err != nil {
		r.close()
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		r.close()
		return nil, err
	}
	for _, p := range paths {
		if p == manifest.Stdin {
			r.close()
			return nil, fmt.Errorf("the manifests come from standard input, which has no git history")
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		rel, err := filepath.Rel(r.top, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			r.close()
			return nil, fmt.Errorf("%s is outside the repository", p)
		}
		r.basePaths = append(r.basePaths, filepath.Join(r.tmp, rel))
	}
	r.baseRoot = r.tmp
	return r, nil
}

// workPrefix is the working directory's path below the repository root top ("a/b/"),
// where relative paths start: git's own answer when git runs there (dir ""), else the
// directories' relation with links resolved ("" when the working directory is not below).
func workPrefix(ctx context.Context, dir, top string) ([]byte, error) {
	if dir == "" {
		return git(ctx, "", nil, "rev-parse", "--show-prefix")
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	realTop, err1 := filepath.EvalSymlinks(top)
	realWd, err2 := filepath.EvalSymlinks(wd)
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	rel, ok := below(realTop, realWd)
	if !ok {
		return nil, nil
	}
	return []byte(filepath.ToSlash(rel) + "/"), nil
}

// extract writes the tree of rev of the repository at dir (relative to the top; "" for
// the repository itself) below r.tmp, then its submodules'. git archive's stream is read
// as it comes; a file git finds unchanged in the working tree is linked from there
// (link), not written again.
func (r *repo) extract(ctx context.Context, dir, rev string) error {
	gitDir := filepath.Join(r.top, dir)
	err := gitStream(ctx, gitDir, func(out io.Reader) error {
		return untar(out, filepath.Join(r.tmp, dir), func(name string, size int64, p string) bool {
			return r.link(filepath.Join(dir, name), size, p)
		})
	}, "archive", "--format=tar", rev)
	if err != nil {
		return err
	}
	list, err := git(ctx, gitDir, nil, "ls-tree", "-r", "-z", rev)
	if err != nil {
		return err
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "commit" {
			continue
		}
		sub := filepath.Join(dir, name)
		if _, err := os.Stat(filepath.Join(r.top, sub, ".git")); err != nil {
			// Not checked out in the working tree either: both sides lack it.
			continue
		}
		if err := r.extract(ctx, sub, f[2]); err != nil {
			return fmt.Errorf("submodule %s at %s: %w", sub, f[2], err)
		}
	}
	return nil
}

// changedFiles are the paths git finds different between rev and the working tree.
func changedFiles(ctx context.Context, top, rev string) (map[string]bool, error) {
	// Not by ctime: linking a file into the base tree (link) changes its ctime, which would
	// make git read every linked file again on the next run to see that it is unchanged.
	// Nor through the repository's fsmonitor or hooks: diff would run the command its
	// configuration names (and post-index-change, when it refreshes the index of a file
	// whose times changed), and that configuration may be a stranger's. A clean filter a
	// file's attributes select still runs when git reads the file: its command is named
	// only by configuration, never by the tree.
	out, err := git(ctx, top, nil, "-c", "core.trustctime=false", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"diff", "--name-only", "--no-renames", "-z", rev, "--")
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for _, name := range strings.Split(string(out), "\x00") {
		if name != "" {
			changed[filepath.FromSlash(name)] = true
		}
	}
	return changed, nil
}

// dirty reports whether git finds rel (relative to the top), or a directory it is in (a
// submodule), changed.
func (r *repo) dirty(rel string) bool {
	for p := rel; p != "." && p != string(filepath.Separator) && p != ""; p = filepath.Dir(p) {
		if r.changed[p] {
			return true
		}
	}
	return false
}

// link puts at p, in place of the archive's file rel (relative to the top) of size
// bytes, the working tree's file when git finds it unchanged: a regular file of that size,
// its bytes the revision's. Creating a file costs the system more than linking one, and
// a pull request leaves most files as they are. False (the archive's bytes are written)
// when the file changed or the file system does not link (another device, another
// owner's file).
func (r *repo) link(rel string, size int64, p string) bool {
	if r.dirty(rel) {
		return false
	}
	src := filepath.Join(r.top, rel)
	if fi, err := os.Lstat(src); err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return false
	}
	return os.Link(src, p) == nil
}

// reuse is the base loader's Options.Reuse: a file of the base that git finds unchanged
// in the working tree (nor the file a symlink leads to, nor a submodule it is in) and that
// head read already is head's objects, not decoded again, so a pull request's base costs
// the files it changes.
func (r *repo) reuse(head *manifest.Set) (func(string, []byte) (manifest.FileObjects, bool), error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	byFile := head.ByFile(func(f string) string {
		if !filepath.IsAbs(f) {
			f = filepath.Join(wd, f)
		}
		return f
	})
	return func(name string, _ []byte) (manifest.FileObjects, bool) {
		rel, err := filepath.Rel(r.tmp, name)
		if err != nil || strings.HasPrefix(rel, "..") || r.dirty(rel) {
			return manifest.FileObjects{}, false
		}
		headFile := filepath.Join(r.top, rel)
		objs, ok := byFile[headFile]
		if !ok {
			return manifest.FileObjects{}, false
		}
		if real, err := r.realPath(headFile); err != nil {
			return manifest.FileObjects{}, false
		} else if realRel, err := filepath.Rel(r.top, real); err != nil || strings.HasPrefix(realRel, "..") || r.dirty(realRel) {
			return manifest.FileObjects{}, false
		}
		return objs, true
	}, nil
}

// realPath is filepath.EvalSymlinks(p) with the directories' resolved once: a base of
// thousands of files in a few directories asks for every one.
func (r *repo) realPath(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(p)
	}
	dir := filepath.Dir(p)
	r.mu.Lock()
	real, ok := r.realDirs[dir]
	r.mu.Unlock()
	if !ok {
		if real, err = filepath.EvalSymlinks(dir); err != nil {
			return "", err
		}
		r.mu.Lock()
		r.realDirs[dir] = real
		r.mu.Unlock()
	}
	return filepath.Join(real, filepath.Base(p)), nil
}

// name is a file of a finding relative to the repository root, from head (named relative
// to the working directory) or from the base tree.
func (r *repo) name(f string) string {
	switch {
	case f == "" || f == manifest.Stdin:
		return f
	case strings.HasPrefix(f, r.tmp+string(filepath.Separator)):
		return filepath.ToSlash(strings.TrimPrefix(f, r.tmp+string(filepath.Separator)))
	case filepath.IsAbs(f):
		if rel, err := filepath.Rel(r.top, f); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		return f
	}
	return filepath.ToSlash(filepath.Join(r.prefix, f))
}

func (r *repo) close() {
	if r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
}

// gitStream runs a git command in dir and hands its output to read as it comes, rather
// than holding all of it; git's stderr becomes the error when git fails, and a read that
// stops early stops git.
func gitStream(ctx context.Context, dir string, read func(io.Reader) error, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %v", command(args), err)
	}
	rerr := read(bufio.NewReaderSize(out, 1<<20)) // a tar header is 512 bytes: not a read each
	if rerr != nil {
		_ = cmd.Process.Kill()
	} else {
		_, _ = io.Copy(io.Discard, out) // the archive's padding: git exits once it is written
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("git %s: %w", command(args), ctx.Err())
	case rerr != nil:
		return rerr
	case werr != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return fmt.Errorf("git %s: %s", command(args), msg)
	}
	return nil
}

// command is the git command args run, for messages: the first argument after the
// options (-c NAME=VALUE) given to git itself.
func command(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}

// git runs a git command in dir ("" for the working directory); its stderr becomes the
// error.
func git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", command(args), ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", command(args), msg)
	}
	return stdout.Bytes(), nil
}
