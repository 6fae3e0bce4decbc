package fileio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// LockTimeout is how long Lock waits for another program's lock by default.
const LockTimeout = 30 * time.Second

// Lock takes the locks of paths as client-go and kubectl take them before they edit a
// kubeconfig: for each file, FILE.lock created exclusively (O_CREATE|O_EXCL), in sorted
// order, so no two writers can wait on each other. A path that is a symlink is also
// locked under the name of the file it leads to, so writers naming the file either way
// take turns. Lock waits up to timeout (or until ctx ends) for a lock held by another,
// then names the lock file; kubectl does not wait, it fails. The returned function
// removes the locks.
func Lock(ctx context.Context, paths []string, timeout time.Duration) (func(), error) {
	names := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		names[p] = true
		if real, _, err := resolve(p); err == nil && real != p {
			if abs, err := filepath.Abs(p); err != nil || abs != real {
				names[real] = true
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var held []string
	var once sync.Once
	remove := func() {
		once.Do(func() {
			for i := len(held) - 1; i >= 0; i-- {
				os.Remove(held[i])
			}
		})
	}
	stop := func() {}
	unlock := func() {
		stop()
		remove()
	}
	for _, n := range sorted {
		lock := n + ".lock"
		if err := lockOne(ctx, lock); err != nil {
			unlock()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s is being edited by another program (its lock %s exists): gave up waiting after %s; if no program is editing it, remove %s", n, lock, timeout, lock)
			}
			return nil, fmt.Errorf("lock %s: %w", n, err)
		}
		held = append(held, lock)
	}
	stop = releaseOnSignal(remove)
	return unlock, nil
}

// lockOne creates lock exclusively, polling while another holds it.
func lockOne(ctx context.Context, lock string) error {
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		return err
	}
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			return f.Close()
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 20*time.Millisecond)
	}
}
