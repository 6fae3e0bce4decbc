package gate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// remotesOf is the loaders' gitops.Options.Remotes: the remotes of the git repository the
// manifests are in, asked once, and only when a tree holds a GitRepository.
func remotesOf(ctx context.Context, paths []string, repo string, timeout time.Duration) func() ([]gitops.Remote, error) {
	return sync.OnceValues(func() ([]gitops.Remote, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return remotes(ctx, treeDir(paths, repo))
	})
}

// treeDir is where the manifests are: the first path's directory (a file's own), else
// repo (standard input alone).
func treeDir(paths []string, repo string) string {
	for _, p := range paths {
		if p == manifest.Stdin {
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return filepath.Dir(p)
		}
		return p
	}
	return repo
}

// remotes reads remote.NAME.url from the configuration of the git repository dir is in:
// none outside a repository (or without git), an error when git cannot say (a repository
// git refuses to read, owned by another user, is one: its remotes are not none). git config
// reads configuration files and nothing more: unlike status or diff it runs no hook, no
// fsmonitor and no other command the repository's configuration (a stranger's, in a pull
// request's checkout) may name; --local keeps the user's and the system's remotes out.
func remotes(ctx context.Context, dir string) ([]gitops.Remote, error) {
	if _, err := exec.LookPath("git"); err != nil || !inRepository(dir) {
		return nil, nil
	}
	out, err := git(ctx, dir, nil, "config", "--local", "-z", "--get-regexp", `^remote\..*\.url$`)
	switch {
	case err == nil:
	case strings.HasSuffix(err.Error(), ": exit status 1"): // no key matched, nothing said: no remote
		return nil, nil
	default:
		// config says only that --local wants a repository; rev-parse says why there is none.
		if _, why := git(ctx, dir, nil, "rev-parse", "--git-dir"); why != nil {
			err = why
		}
		return nil, fmt.Errorf("the remotes of the git repository of %s: %w", dir, err)
	}
	var rs []gitops.Remote
	for _, rec := range strings.Split(string(out), "\x00") {
		key, url, ok := strings.Cut(rec, "\n")
		if !ok {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".url")
		rs = append(rs, gitops.Remote{Name: name, URL: url})
	}
	return rs, nil
}

// inRepository reports whether dir or a directory above it holds .git (a directory, or the
// file of a worktree or submodule), where git looks for the repository: decided here, not
// from git's words, which a refusal shares and a locale translates.
func inRepository(dir string) bool {
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}
