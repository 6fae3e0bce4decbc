package check

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// A base file with the bytes of head's file at the same place is head's objects; a changed
// file, or one head does not have, is decoded.
func TestDirReuse(t *testing.T) {
	root := t.TempDir()
	head, base := filepath.Join(root, "head"), filepath.Join(root, "base")
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: a}\n"
	write := func(dir, name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(head, "x/same.yaml", sprintf(doc, "same"))
	write(head, "x/edited.yaml", sprintf(doc, "edited"))
	same := write(base, "x/same.yaml", sprintf(doc, "same"))
	edited := write(base, "x/edited.yaml", sprintf(doc, "before"))
	gone := write(base, "x/gone.yaml", sprintf(doc, "gone"))
	set, err := manifest.Load([]string{head}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reuse := dirReuse([]string{head}, []string{base}, set, manifest.DefaultMaxFileBytes)
	if reuse == nil {
		t.Fatal("no reuse for two directories")
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if objs, ok := reuse(same, read(same)); !ok || len(objs) != 1 || objs[0].Name != "same" {
		t.Errorf("unchanged file not reused: %v %v", objs, ok)
	}
	for _, p := range []string{edited, gone} {
		if _, ok := reuse(p, read(p)); ok {
			t.Errorf("%s reused", p)
		}
	}
	if dirReuse([]string{head}, []string{same}, set, manifest.DefaultMaxFileBytes) != nil {
		t.Error("a base file, not a directory, got a reuse")
	}
}

func sprintf(format, name string) string { return fmt.Sprintf(format, name) }
