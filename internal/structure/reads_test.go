package structure

import (
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// boundedReader is the one package that reads a file or a stream whole: every read is
// bounded (CONTRIBUTING.md, "Standards"), and its ReadFile refuses a FIFO or a device
// instead of waiting on it or growing without end.
const boundedReader = "pkg/fileio"

// unboundedReadFuncs are the standard library's reads of a whole file or stream, which
// know no limit, by import path and name.
var unboundedReadFuncs = map[string]bool{
	"os.ReadFile":        true,
	"io.ReadAll":         true,
	"io/ioutil.ReadFile": true,
	"io/ioutil.ReadAll":  true,
}

// unboundedReads are the uses (calls or values) of unboundedReadFuncs in non-test files
// outside boundedReader, by "path:line".
func unboundedReads(files []goFile) map[string]string {
	offenders := map[string]string{}
	for _, f := range files {
		if f.test || pathDir(f.rel) == boundedReader {
			continue
		}
		imports := map[string]string{} // the name a file uses -> import path
		for _, im := range f.ast.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && unboundedReadFuncs[imports[x.Name]+"."+sel.Sel.Name] {
				where := fmt.Sprintf("%s:%d", f.rel, f.fset.Position(sel.Pos()).Line)
				offenders[where] = imports[x.Name] + "." + sel.Sel.Name
			}
			return true
		})
	}
	return offenders
}

// TestOneWayToRead: production code reads files and streams through pkg/fileio
// (fileio.ReadFile, fileio.ReadAll), with a limit fit for what it reads, never with
// os.ReadFile or io.ReadAll.
func TestOneWayToRead(t *testing.T) {
	offenders := unboundedReads(goFiles(t, repoRoot(t)))
	if len(offenders) > 0 {
		var list []string
		for where, what := range offenders {
			list = append(list, where+" ("+what+")")
		}
		sort.Strings(list)
		t.Errorf("%d unbounded reads:\n  %s\nread through %s with a limit (fileio.ReadFile(path, limit), fileio.ReadAll(r, limit))",
			len(offenders), strings.Join(list, "\n  "), boundedReader)
	}
}

// TestUnboundedReadsFound runs the check on a small repository made for it.
func TestUnboundedReadsFound(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"internal/a/a.go": "package a\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\nvar read = os.ReadFile\n\nfunc f(r io.Reader) { _, _ = io.ReadAll(r) }\n",
		"internal/b/b.go": "package b\n\nimport legacy \"io/ioutil\"\n\nfunc f() { _, _ = legacy.ReadFile(\"x\") }\n",
		// Not offenders: a test, the bounded reader itself, another package's ReadFile.
		"internal/a/a_test.go": "package a\n\nimport \"os\"\n\nfunc g() { _, _ = os.ReadFile(\"x\") }\n",
		"pkg/fileio/read.go":   "package fileio\n\nimport \"io\"\n\nfunc h(r io.Reader) { _, _ = io.ReadAll(r) }\n",
		"internal/c/c.go":      "package c\n\nimport \"github.com/x/os\"\n\nfunc k() { _, _ = os.ReadFile(\"x\") }\n",
	})
	assertKeys(t, "unboundedReads", unboundedReads(goFiles(t, root)),
		"internal/a/a.go:8", "internal/a/a.go:10", "internal/b/b.go:5")
}

// writeTree writes files (slash-separated paths relative to root, and their text).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
