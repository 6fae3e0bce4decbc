//go:build unix

package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A device or a FIFO is refused, by name, and neither its mode nor its owner is touched:
// writing "--file /dev/null" must not chmod /dev/null for everyone.
func TestWriteRefusesIrregularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/null", fifo, link, t.TempDir()} {
		before, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		err = writeFile(p, []byte("x"), 0o600)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("writeFile(%s) = %v, want a refusal naming it", p, err)
		}
		after, _ := os.Stat(p)
		if after.Mode() != before.Mode() {
			t.Errorf("%s: mode changed from %v to %v", p, before.Mode(), after.Mode())
		}
	}
}

// A symlink keeps pointing at its file, which gets the new text, keeping its mode; a
// dangling link creates the file it names.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink("real/config.yaml", link); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(link, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target holds %q", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
	}
	dangling := filepath.Join(dir, "dangling.yaml")
	if err := os.Symlink("real/new.yaml", dangling); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(dangling, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "real", "new.yaml")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the file the dangling link names: %v, %v", st, err)
	}
}

// The owner and group of a file are kept (as root, where a rename would otherwise hand the
// file to root).
func TestWriteKeepsOwnerAndGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 4321, 8765); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(p, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	s := st.Sys().(*syscall.Stat_t)
	if s.Uid != 4321 || s.Gid != 8765 || st.Mode().Perm() != 0o600 {
		t.Errorf("owner %d:%d mode %v, want 4321:8765 0600", s.Uid, s.Gid, st.Mode().Perm())
	}
}

// Lock is client-go's FILE.lock: held, it makes another Lock wait and then name the lock;
// released, it is gone. A symlinked file is locked under both names.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config")
	link := filepath.Join(dir, "link")
	if err := os.Symlink("config", link); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	unlock, err := Lock(ctx, []string{link}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{p + ".lock", link + ".lock"} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err = Lock(ctx, []string{p}, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), p+".lock") {
		t.Errorf("second Lock = %v, want a message naming %s.lock", err, p)
	}
	done := make(chan error)
	go func() {
		u, err := Lock(ctx, []string{p}, 5*time.Second)
		if err == nil {
			u()
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	if err := <-done; err != nil {
		t.Errorf("after unlock: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(m) > 0 {
		t.Errorf("locks left: %v", m)
	}
}

// writeFile writes data to path as the tools write one file: Open, then Commit.
func writeFile(path string, data []byte, newMode os.FileMode) error {
	f, err := Open(path, newMode, 0)
	if err != nil {
		return err
	}
	return Commit([]Change{{File: f, Data: data}})
}
