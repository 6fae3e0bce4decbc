package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The run's node bound grows with the bytes read: an honest tree of Butler objects many
// times the size of the bound it starts with loads.
func TestRunBoundScalesWithWhatIsRead(t *testing.T) {
	defer func(u int) { runUnits = u }(runUnits)
	runUnits = 40000 // the same code paths as the real bound, in a fraction of the time
	dir := t.TempDir()
	var users strings.Builder
	for u := 0; u < 20; u++ {
		fmt.Fprintf(&users, "      - {name: dev%d@example.com, role: operator}\n", u)
	}
	for f := 0; f < 40; f++ {
		var b strings.Builder
		for d := 0; d < 20; d++ {
			fmt.Fprintf(&b, "---\napiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: t%d}\nspec:\n  access:\n    users:\n%s", f*20+d, users.String())
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", f)), []byte(b.String()), 0o644))
	}
	b := newBudget()
	set, err := Load([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Objects) != 800 {
		t.Fatalf("%d objects, want 800", len(set.Objects))
	}
	// Each Team is about 100 nodes: 80,000 in all, twice the bound the run starts with.
	if units := 800 * 100; int64(units) < 2*b.limit {
		t.Fatalf("the tree is not large enough to cross the starting bound (%d): %d units", b.limit, units)
	}
}

// Aliases in the fields of Butler objects, within the bound of each document, are refused
// by the run's bound when they expand to more nodes than the bytes read allow.
func TestRunBoundRefusesTypedAliases(t *testing.T) {
	defer func(u int) { runUnits = u }(runUnits)
	runUnits = 40000
	var users, envs strings.Builder
	for u := 0; u < 20; u++ {
		fmt.Fprintf(&users, "{name: dev%d@example.com, role: operator}, ", u)
	}
	for e := 0; e < 20; e++ {
		fmt.Fprintf(&envs, "    - {name: e%d, access: {users: *u}}\n", e)
	}
	dir := t.TempDir()
	for f := 0; f < 4; f++ {
		var b strings.Builder
		for d := 0; d < 10; d++ {
			fmt.Fprintf(&b, "---\napiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: t%d}\nspec:\n  access: {users: &u [%s]}\n  environments:\n%s", f*10+d, users.String(), envs.String())
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", f)), []byte(b.String()), 0o644))
	}
	_, err := Load([]string{dir}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "the manifests together are too large"); n != 1 || !strings.Contains(msg, "nodes for") {
		t.Fatalf("bound reported %d times, or not by its bytes:\n%s", n, msg)
	}
}

// Aliases that expand to many nodes from few bytes, spread over documents each well under
// the bound of one document, are refused at the real bound, once, in the file where they
// cross it; the documents after it are not decoded.
func TestRunBoundRefusesAliasesAcrossDocuments(t *testing.T) {
	const doc = `---
apiVersion: v1
kind: ConfigMap
metadata: {name: b%d}
a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
`
	dir := t.TempDir()
	for f := 0; f < 4; f++ {
		var b strings.Builder
		for d := 0; d < 50; d++ {
			fmt.Fprintf(&b, doc, f*50+d)
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", f)), []byte(b.String()), 0o644))
	}
	_, err := Load([]string{dir}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "the manifests together are too large"); n != 1 {
		t.Fatalf("bound reported %d times:\n%s", n, msg)
	}
	// About 44,000 units a document against 4 million and a few thousand bytes: the 95th
	// document crosses it, in the second file.
	if !strings.HasPrefix(msg, filepath.Join(dir, "f1.yaml")+":") || strings.Contains(msg, "\n") {
		t.Errorf("crossed elsewhere than in f1.yaml, or more reported after it:\n%s", msg)
	}
	if !strings.Contains(msg, "more than 1048576 nodes of kinds other than Butler's and Steward's") {
		t.Errorf("the bound is not named:\n%s", msg)
	}
}

// Decode and LoadFiles grant the bytes of each file too.
func TestRunBoundOfLoadFiles(t *testing.T) {
	defer func(u int) { runUnits = u }(runUnits)
	runUnits = 200
	var b strings.Builder
	b.WriteString("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: t}\nspec:\n  access:\n    users:\n")
	for u := 0; u < 50; u++ {
		fmt.Fprintf(&b, "      - {name: dev%d@example.com, role: operator}\n", u)
	}
	if _, err := LoadFiles([]File{{Name: "a.yaml", Data: []byte(b.String())}}, Options{}); err != nil {
		t.Fatalf("an honest file over the starting bound: %v", err)
	}
	bomb := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	if _, err := Decode("bomb.yaml", []byte(bomb)); err == nil || !strings.Contains(err.Error(), "together are too large") {
		t.Fatalf("got %v", err)
	}
}

// Past the run's total of bytes, reading stops at the first file that crosses it: one
// error names it and says so, not one error for every file left.
func TestRunReadBoundStopsReading(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%02d}\ndata: {a: \"" + strings.Repeat("x", 1000) + "\"}\n"
	for f := 0; f < 50; f++ {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", f)), []byte(fmt.Sprintf(doc, f)), 0o644))
	}
	_, err := LoadWith([]string{dir, filepath.Join(dir, "f00.yaml")}, nil, Options{MaxTotalBytes: 10 << 10})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, filepath.Join(dir, "f09.yaml")+": larger than ") || strings.Contains(msg, "\n") ||
		!strings.HasSuffix(msg, " bytes (what is left of the limit of 10 KiB for all manifests together); nothing after this point was read") {
		t.Fatalf("want one error, at f09.yaml (the tenth file of 1 KiB):\n%s", msg)
	}
}
