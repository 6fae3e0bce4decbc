package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The run's node bound is crossed in the middle of a tree: whatever the number of workers,
// the error names the same file, line and field, once, and the files after it add
// nothing but their JSON errors, as a sequential Load gives.
func TestLoadParallelSameErrors(t *testing.T) {
	defer func(u int) { runUnits = u }(runUnits)
	runUnits = 40000 // the same code paths as the real bound, in a fraction of the time
	dir := t.TempDir()
	doc := "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: [" + strings.Repeat("a,", 200) + "a]\n"
	for f := 0; f < 12; f++ {
		var b strings.Builder
		for d := 0; d < 10; d++ {
			fmt.Fprintf(&b, doc, f*100+d)
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", f)), []byte(b.String()), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "z-bad.json"), []byte(`{"a": 1,}`), 0o644))
	load := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		_, err := Load([]string{dir}, nil)
		if err == nil {
			t.Fatal("no error")
		}
		return err.Error()
	}
	want := load(1)
	if n := strings.Count(want, "the manifests together are too large"); n != 1 {
		t.Fatalf("bound reported %d times:\n%s", n, want)
	}
	if !strings.Contains(want, "z-bad.json") {
		t.Fatalf("JSON error after the bound missing:\n%s", want)
	}
	for _, procs := range []int{2, 4, 8} {
		if got := load(procs); got != want {
			t.Errorf("GOMAXPROCS=%d:\n%s\nwant (GOMAXPROCS=1):\n%s", procs, got, want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A panic while decoding one file is an error naming it; the other files still load.
func TestLoadWorkerPanicIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + n + "}\n"
		must(t, os.WriteFile(filepath.Join(dir, n+".yaml"), []byte(doc), 0o644))
	}
	bad := filepath.Join(dir, "b.yaml")
	defer func(h func(string)) { workerHook = h }(workerHook)
	workerHook = func(name string) {
		if name == bad {
			panic("boom")
		}
	}
	_, err := Load([]string{dir}, nil)
	if err == nil || err.Error() != bad+": internal error while reading it: boom" {
		t.Fatalf("got %v", err)
	}
}
