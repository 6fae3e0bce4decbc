package docgen

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// generated lists the generated files under root: name relative to root -> content.
func generated(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, d := range []struct{ dir, ext string }{
		{ReferenceDir, ".md"}, {ManDir, ".1"},
		{CompletionsDir, ".bash"}, {CompletionsDir, ".zsh"}, {CompletionsDir, ".fish"}, {CompletionsDir, ".ps1"},
	} {
		entries, err := os.ReadDir(filepath.Join(root, d.dir))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), d.ext) {
				continue
			}
			rel := filepath.Join(d.dir, e.Name())
			b, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			out[rel] = b
		}
	}
	return out
}

// TestGeneratedFilesAreCurrent regenerates the reference, the man pages and the completion
// scripts and compares them with the checked-in files byte for byte.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	tmp := t.TempDir()
	if err := Generate(tmp); err != nil {
		t.Fatal(err)
	}
	want := generated(t, tmp)
	got := generated(t, filepath.Join("..", ".."))
	if len(want) == 0 {
		t.Fatal("nothing generated")
	}
	var problems []string
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			problems = append(problems, name+" is missing")
		case !bytes.Equal(g, w):
			problems = append(problems, name+" is out of date")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			problems = append(problems, name+" is no longer generated")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Fatalf("generated documentation is stale: run make docs\n  %s", strings.Join(problems, "\n  "))
	}
}

// TestReproducible: two runs write the same bytes (no dates, no map order).
func TestReproducible(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := Generate(a); err != nil {
		t.Fatal(err)
	}
	if err := Generate(b); err != nil {
		t.Fatal(err)
	}
	ga, gb := generated(t, a), generated(t, b)
	if len(ga) != len(gb) {
		t.Fatalf("%d files, then %d", len(ga), len(gb))
	}
	for name, x := range ga {
		if !bytes.Equal(x, gb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// TestCompletionCommandDocumented: both binaries have cobra's completion command for every
// shell, with its help in the reference.
func TestCompletionCommandDocumented(t *testing.T) {
	for _, name := range Names {
		root := NewTree(name)
		comp, _, err := root.Find([]string{"completion"})
		if err != nil || comp.Name() != "completion" {
			t.Fatalf("%s: no completion command: %v", name, err)
		}
		for _, sh := range Shells {
			b, err := Completion(name, sh.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(name)) || len(b) < 1000 {
				t.Errorf("%s completion %s: %d bytes, want a script", name, sh.Name, len(b))
			}
		}
	}
	tmp := t.TempDir()
	if err := Generate(tmp); err != nil {
		t.Fatal(err)
	}
	for _, name := range Names {
		for _, page := range []string{name + "_completion.md", name + "_completion_bash.md", name + "_version.md"} {
			if _, err := os.Stat(filepath.Join(tmp, ReferenceDir, page)); err != nil {
				t.Errorf("reference page %s: %v", page, err)
			}
		}
	}
}
