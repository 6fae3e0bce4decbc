package edit

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func newTeam(name string) *v1alpha1.Team {
	return &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// leftovers lists the temporary files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A file created by someone else between reading and writing is not overwritten: the
// creation is exclusive, the other file stays as it is, and nothing is left behind.
func TestWriteCreateIsExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "teams", "a.yaml")
	plans, err := plan([]Change{{File: path, Obj: newTeam("a")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	theirs := "# written by the other run\n"
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	err = commit(plans)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("got %v, want a refusal: the file already exists", err)
	}
	checkFile(t, path, theirs)
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// A new file gets the mode asked for, from the first byte on; a failed Write of several
// files takes back those already written, with the directories it made, and leaves no
// temporary file.
func TestWriteModeAndRollback(t *testing.T) {
	dir := t.TempDir()
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}, "data": map[string]any{"k": "dg=="},
	}}
	path := filepath.Join(dir, "secrets", "s.yaml")
	if err := Write([]Change{{File: path, Obj: secret, Mode: 0o600}}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}

	// The second file's directory cannot be made (a file has its name): the first
	// file's temporary file and the directory made for it go again.
	if err := os.WriteFile(filepath.Join(dir, "blocker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "new", "a.yaml")
	err := Write([]Change{{File: first, Obj: newTeam("a")}, {File: filepath.Join(dir, "blocker", "sub", "b.yaml"), Obj: newTeam("b")}})
	if err == nil {
		t.Fatal("want an error")
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the directory made for the first file is still there: %v", err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkFile(t *testing.T, path, want string) {
	t.Helper()
	if got := readFile(t, path); got != want {
		t.Errorf("%s:\n--- got ---\n%s--- want ---\n%s", filepath.Base(path), got, want)
	}
}
