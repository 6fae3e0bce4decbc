package crosscheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// module writes a module of one main package (files by name) and returns its directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/tool\n\ngo 1.26\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	return dir
}

func check(t *testing.T, dir, target string) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	goos, goarch, _ := strings.Cut(target, "/")
	res, err := Check(ctx, dir, goos, goarch, ".")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A syscall type only Linux has, used in a file every system builds: the Linux build takes
// it, and the checks for Windows and macOS fail naming the file, the line and what is
// missing, as their builds would.
func TestLinuxOnlyCodeFails(t *testing.T) {
	dir := module(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"syscall"
)

func main() {
	var st syscall.Stat_t
	fmt.Println(st.Atim)
}
`})
	if res := check(t, dir, "linux/amd64"); len(res.Errors) > 0 {
		t.Fatalf("linux/amd64: %q, want no errors", res.Errors)
	}
	for target, want := range map[string]string{
		"windows/amd64": "undefined: syscall.Stat_t",
		"darwin/arm64":  "st.Atim undefined",
	} {
		res := check(t, dir, target)
		if len(res.Errors) == 0 {
			t.Errorf("%s: no errors, want %q", target, want)
			continue
		}
		if got := res.Errors[0]; !strings.Contains(got, "main.go:9:") && !strings.Contains(got, "main.go:10:") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want main.go's line and %q", target, got, want)
		}
		if res.Packages < 10 { // the standard library it imports was checked too
			t.Errorf("%s: %d packages checked, want the standard library's too", target, res.Packages)
		}
	}
}

// The same code split by build constraints, as the project does it, passes everywhere.
func TestPerSystemFilesPass(t *testing.T) {
	dir := module(t, map[string]string{
		"main.go":        "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(atime()) }\n",
		"atime_linux.go": "package main\n\nimport \"syscall\"\n\nfunc atime() any { var st syscall.Stat_t; return st.Atim }\n",
		"atime_other.go": "//go:build !linux\n\npackage main\n\nfunc atime() any { return nil }\n",
	})
	for _, target := range []string{"linux/amd64", "windows/amd64", "darwin/arm64"} {
		if res := check(t, dir, target); len(res.Errors) > 0 {
			t.Errorf("%s: %q, want no errors", target, res.Errors)
		}
	}
}

// What go list cannot resolve (an import of nothing) is an error too, not a package
// skipped.
func TestMissingImportFails(t *testing.T) {
	dir := module(t, map[string]string{"main.go": "package main\n\nimport _ \"example.com/tool/nothing\"\n\nfunc main() {}\n"})
	res := check(t, dir, "windows/amd64")
	if len(res.Errors) == 0 || !strings.Contains(strings.Join(res.Errors, "\n"), "example.com/tool/nothing") {
		t.Fatalf("errors %q, want one naming example.com/tool/nothing", res.Errors)
	}
}
