//go:build unix

package manifest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An edit keeps the file's owner and group (as root, a rename would hand the file to root)
// and writes through a symlink to its file.
func TestWriteKeepsOwnerGroupAndLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "real", "a.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(user("a")), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 4321, 8765); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "a.yaml")
	if err := os.Symlink("real/a.yaml", link); err != nil {
		t.Fatal(err)
	}
	set := load(t, link)
	u := set.User("a")
	u.Spec.DisplayName = "A"
	if err := Write([]Change{{Source: set.SourceOf(u), Obj: u}}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	st, _ := os.Stat(path)
	s := st.Sys().(*syscall.Stat_t)
	if s.Uid != 4321 || s.Gid != 8765 || st.Mode().Perm() != 0o640 {
		t.Errorf("owner %d:%d mode %v, want 4321:8765 0640", s.Uid, s.Gid, st.Mode().Perm())
	}
	if load(t, path).User("a").Spec.DisplayName != "A" {
		t.Error("the edit is not in the file")
	}
}
