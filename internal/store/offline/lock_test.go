//go:build unix

package offline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run on a tree excludes a run on the same tree and one on a file inside it (until it
// releases its lock, or the other gives up with a message naming the directory), but not
// a run on another tree.
func TestTreeLock(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "payments")
	other := filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(dir, "teams"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "teams", "t.yaml")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held, err := lockTree(ctx, []string{dir}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]string{{dir}, {file}, {"-", dir + "/"}} {
		_, err := lockTree(ctx, p, 100*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "another butler command is working on") {
			t.Errorf("%v while %s is locked: %v", p, dir, err)
		}
	}
	l, err := lockTree(ctx, []string{other, "-"}, 100*time.Millisecond)
	if err != nil {
		t.Errorf("another tree: %v", err)
	}
	l.release()

	done := make(chan error)
	go func() {
		l, err := lockTree(ctx, []string{file}, 5*time.Second)
		l.release()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	held.release()
	if err := <-done; err != nil {
		t.Errorf("after release: %v", err)
	}
}
