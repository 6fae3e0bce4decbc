package gate

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
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Head's bytes read again, or known by the digests the head load recorded.
	for _, recorded := range []bool{false, true} {
		var sums *digests
		opts := manifest.Options{}
		if recorded {
			sums = newDigests()
			opts.Reuse = sums.record
		}
		set, err := manifest.LoadWith([]string{head}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if recorded {
			if len(sums.m) != 2 {
				t.Fatalf("digests of %d files recorded, want 2", len(sums.m))
			}
			// The objects reused are the ones decoded from the bytes the head load read:
			// head's file is not read again, so a later write to it changes nothing.
			write(head, "x/same.yaml", "# written after the load\n"+sprintf(doc, "same"))
		}
		reuse := dirReuse([]string{head}, []string{base}, set, sums, manifest.DefaultMaxFileBytes)
		if reuse == nil {
			t.Fatal("no reuse for two directories")
		}
		if objs, ok := reuse(same, read(same)); !ok || objs.Len() != 1 {
			t.Errorf("recorded %v: unchanged file not reused: %v %v", recorded, objs, ok)
		}
		for _, p := range []string{edited, gone} {
			if _, ok := reuse(p, read(p)); ok {
				t.Errorf("recorded %v: %s reused", recorded, p)
			}
		}
	}
	set, err := manifest.Load([]string{head}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dirReuse([]string{head}, []string{same}, set, nil, manifest.DefaultMaxFileBytes) != nil {
		t.Error("a base file, not a directory, got a reuse")
	}
}

func sprintf(format, name string) string { return fmt.Sprintf(format, name) }
