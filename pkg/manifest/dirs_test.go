package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// LinkedDirs are the real, absolute directories a load reaches through links: a linked
// directory, and the directory of a linked file, whether the link is named or found in a
// walk; tool folders are left out, as Load leaves them out, and other hidden entries are
// followed.
func TestLinkedDirs(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for _, d := range []string{"tree", "common/teams", "files", "hidden", "linked"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "files", "a.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"tree/teams":  "../common/teams",
		"tree/a.yaml": "../files/a.yaml",
		"tree/.git":   "../hidden",
		"tree/.cfg":   "../linked",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	got := LinkedDirs([]string{"tree", "-"})
	want := []string{filepath.Join(dir, "linked"), filepath.Join(dir, "files"), filepath.Join(dir, "common", "teams")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LinkedDirs = %v, want %v", got, want)
	}
	if got := LinkedDirs([]string{"tree/a.yaml"}); !reflect.DeepEqual(got, want[1:2]) {
		t.Errorf("a named link: %v, want %v", got, want[1:2])
	}
}
