package offline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// LockTimeout is how long Open waits for another run working on the same manifests.
const LockTimeout = time.Minute

// treeLock is the lock of one run on the --manifests trees. Each named directory (for a
// file, the directory holding it), and each real directory the load reaches through a
// symlink (manifest.LinkedDirs), is locked exclusively, and every directory above it
// shared: a run on DIR and a run on DIR/teams/payments.yaml exclude each other (the
// second's shared lock on DIR waits for the first's exclusive one), while runs on two
// unrelated trees do not wait at all. Directories are locked, never files, because a
// write replaces a file by another (a lock on the old one would protect nothing), and
// no lock file is left in the repository. The locks are advisory (flock): they order
// the toolkit's runs, not other programs. They go when the run ends, by Close or exit.
type treeLock struct {
	held []*os.File
}

// lockTree takes the locks of paths ("-" is stdin and needs none), waiting up to
// timeout, or until ctx ends, for another run to release them. All runs take their
// locks in the same (lexical) order, so no two can wait on each other.
func lockTree(ctx context.Context, paths []string, timeout time.Duration) (*treeLock, error) {
	modes := map[string]bool{} // directory -> exclusive
	var dirs []string
	for _, p := range paths {
		if p == "-" {
			continue
		}
		dir, ok := lockDirOf(p)
		if !ok {
			continue // a path that cannot be resolved fails the load, with its own message
		}
		dirs = append(dirs, dir)
	}
	// What the load reaches through symlinks is locked as if it had been named: two trees
	// sharing a directory through links exclude each other on it.
	dirs = append(dirs, manifest.LinkedDirs(paths)...)
	for _, dir := range dirs {
		modes[dir] = true
		for a := filepath.Dir(dir); ; a = filepath.Dir(a) {
			if !modes[a] {
				modes[a] = false
			}
			if filepath.Dir(a) == a {
				break
			}
		}
	}
	dirs = dirs[:0]
	for d := range modes {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l := &treeLock{}
	for _, d := range dirs {
		f, err := lockOne(ctx, d, modes[d])
		if err != nil {
			l.release()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("another butler command is working on %s: gave up waiting for it after %s (run this again when it has finished)", d, timeout)
			}
			return nil, err
		}
		if f != nil {
			l.held = append(l.held, f)
		}
	}
	return l, nil
}

// lockDirOf is the directory to lock exclusively for a --manifests path, symlinks
// resolved: the directory itself, or the one holding a file.
func lockDirOf(p string) (string, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", false
	}
	if st.IsDir() {
		return real, true
	}
	return filepath.Dir(real), true
}

// lockOne locks directory d, polling so that the wait can end; nil, nil when d cannot be
// opened (a parent the user may pass through but not read: it cannot be locked by anyone
// else either, then).
func lockOne(ctx context.Context, d string, exclusive bool) (*os.File, error) {
	f, err := os.Open(d)
	if err != nil {
		if exclusive {
			return nil, err
		}
		return nil, nil
	}
	wait := time.Millisecond
	for {
		ok, err := tryLock(f, exclusive)
		if err != nil {
			f.Close()
			if !exclusive {
				return nil, nil // a file system without locks: nothing to share
			}
			return nil, fmt.Errorf("lock %s: %w", d, err)
		}
		if ok {
			return f, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// release lets the next run go.
func (l *treeLock) release() {
	if l == nil {
		return
	}
	for i := len(l.held) - 1; i >= 0; i-- {
		unlock(l.held[i])
		l.held[i].Close()
	}
	l.held = nil
}
