package structure

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

const (
	module = "github.com/butlerdotdev/butler-toolkit"

	// Limits from CONTRIBUTING.md ("Standards").
	maxFuncLines = 80
	maxFileLines = 400

	// maxFileBytes bounds every read; nothing hand-written in the repository comes near it.
	maxFileBytes = 8 << 20
)

// repoRoot is the directory holding the project's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := fileio.ReadFile(filepath.Join(dir, "go.mod"), 1<<20)
		if err == nil && bytes.Contains(b, []byte("module "+module+"\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod of " + module + " not found above the test directory")
		}
		dir = parent
	}
}

// skipDir is true for directories that hold no project source: git's, build output, and
// what the go tool ignores (testdata, vendor, names starting with "." or "_").
func skipDir(rel, name string) bool {
	if rel == "." {
		return false
	}
	return name == "testdata" || name == "vendor" || name == "bin" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// goFile is one parsed Go source file of the repository.
type goFile struct {
	rel       string // slash-separated, relative to the repository root
	test      bool
	generated bool
	lines     int
	fset      *token.FileSet
	ast       *ast.File
}

// goFiles parses every Go file of the repository, the tools modules under hack/ included.
func goFiles(t *testing.T, root string) []goFile {
	t.Helper()
	var out []goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".go") || !d.Type().IsRegular() {
			return nil
		}
		src, err := fileio.ReadFile(path, maxFileBytes)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, goFile{
			rel:       filepath.ToSlash(rel),
			test:      strings.HasSuffix(d.Name(), "_test.go"),
			generated: ast.IsGenerated(f),
			lines:     countLines(src),
			fset:      fset,
			ast:       f,
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no Go files found under " + root)
	}
	return out
}

func countLines(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// funcName names a function as the allow-list does: Name, or Type.Method for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// checkAllowed reports offenders missing from allowed, and allow-list entries that no
// longer offend (so that the list only shrinks). kind names the list in messages.
func checkAllowed(t *testing.T, kind string, offenders map[string]string, allowed map[string]string) {
	t.Helper()
	var bad, stale []string
	for k, what := range offenders {
		if _, ok := allowed[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s (%s)", k, what))
		}
	}
	for k := range allowed {
		if _, ok := offenders[k]; !ok {
			stale = append(stale, k)
		}
	}
	sort.Strings(bad)
	sort.Strings(stale)
	if len(bad) > 0 {
		t.Errorf("%d %s:\n  %s\nsplit them by meaning (or, if the team decides to keep one for now, add it to %s in allowlist_test.go with a reason)",
			len(bad), kind, strings.Join(bad, "\n  "), listName(kind))
	}
	if len(stale) > 0 {
		t.Errorf("%d entries of %s in allowlist_test.go no longer apply; remove them:\n  %s",
			len(stale), listName(kind), strings.Join(stale, "\n  "))
	}
}

// checkSized is checkAllowed for lists that record sizes: an entry may not grow past the
// lines recorded for it, and when it shrinks the record must come down with it, so a long
// file or function can only get shorter (moving lines around cannot hide growth).
func checkSized(t *testing.T, kind string, offenders map[string]int, allowed map[string]sized) {
	t.Helper()
	names := map[string]string{}
	for k, n := range offenders {
		names[k] = strconv.Itoa(n) + " lines"
	}
	plain := map[string]string{}
	for k, a := range allowed {
		plain[k] = a.why
	}
	checkAllowed(t, kind, names, plain)
	grew, shrank := sizeProblems(offenders, allowed)
	if len(grew) > 0 {
		t.Errorf("%d allow-listed %s grew past their recorded size; split them instead of growing them:\n  %s",
			len(grew), kind, strings.Join(grew, "\n  "))
	}
	if len(shrank) > 0 {
		t.Errorf("%d allow-listed %s shrank: lower their recorded size in %s (allowlist_test.go) to what they are now:\n  %s",
			len(shrank), kind, listName(kind), strings.Join(shrank, "\n  "))
	}
}

// sized is an allow-list entry that records how many lines its file or function had when
// the team allowed it, and why.
type sized struct {
	lines int
	why   string
}

// sizeProblems are the allowed offenders longer than recorded (grew) and shorter (shrank).
func sizeProblems(offenders map[string]int, allowed map[string]sized) (grew, shrank []string) {
	for k, n := range offenders {
		a, ok := allowed[k]
		switch {
		case !ok:
		case n > a.lines:
			grew = append(grew, fmt.Sprintf("%s: %d lines, %d recorded", k, n, a.lines))
		case n < a.lines:
			shrank = append(shrank, fmt.Sprintf("%s: %d lines, %d recorded", k, n, a.lines))
		}
	}
	sort.Strings(grew)
	sort.Strings(shrank)
	return grew, shrank
}

func listName(kind string) string {
	switch {
	case strings.Contains(kind, "function"):
		return "longFuncs"
	case strings.Contains(kind, "file"):
		return "longFiles"
	case strings.Contains(kind, "commands"):
		return "commandImports"
	case strings.Contains(kind, "flags"):
		return "flagWords"
	}
	return "layerImports"
}

// longFunctions are the non-test, non-generated functions longer than 80 lines, counted
// from the func keyword to the closing brace.
func longFunctions(files []goFile) map[string]int {
	offenders := map[string]int{}
	for _, f := range files {
		if f.test || f.generated {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := f.fset.Position(fn.End()).Line - f.fset.Position(fn.Pos()).Line + 1
			if n > maxFuncLines {
				offenders[f.rel+":"+funcName(fn)] = n
			}
		}
	}
	return offenders
}

// longFileList are the hand-written non-test Go files longer than 400 lines.
func longFileList(files []goFile) map[string]int {
	offenders := map[string]int{}
	for _, f := range files {
		if !f.test && !f.generated && f.lines > maxFileLines {
			offenders[f.rel] = f.lines
		}
	}
	return offenders
}

// TestFunctionLength: no function outside tests and generated code is longer than 80 lines.
func TestFunctionLength(t *testing.T) {
	checkSized(t, fmt.Sprintf("functions longer than %d lines", maxFuncLines), longFunctions(goFiles(t, repoRoot(t))), longFuncs)
}

// TestFileLength: no hand-written non-test Go file is longer than 400 lines.
func TestFileLength(t *testing.T) {
	checkSized(t, fmt.Sprintf("files longer than %d lines", maxFileLines), longFileList(goFiles(t, repoRoot(t))), longFiles)
}

// layerRule forbids the packages under from importing what forbidden matches.
type layerRule struct {
	under     []string // package directories (and everything below them)
	forbidden []string // import paths (and everything below them)
	why       string
}

var layerRules = []layerRule{
	{
		under:     []string{"pkg"},
		forbidden: []string{module + "/internal"},
		why:       "pkg/ is the library others may import: nothing of it may need the tools' internals",
	},
	{
		under:     []string{"pkg/policy"},
		forbidden: []string{module + "/internal", "github.com/spf13/cobra", "github.com/spf13/viper"},
		why:       "pkg/policy is the pure rules library: it imports nothing of the CLI",
	},
	{
		under:     []string{"pkg"},
		forbidden: []string{module + "/internal"},
		why:       "pkg/ is the library other programs import: it imports nothing of internal/",
	},
	{
		under:     []string{"internal/store", "internal/lookup", "internal/controlplane", "internal/clusterwatch"},
		forbidden: []string{module + "/internal/cmd", module + "/internal/cmdutil"},
		why:       "stores and lookups speak errors, not flags: the command layer turns them into advice and exit codes",
	},
}

func within(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// layerOffenders are the imports that cross a layerRule, by "package dir -> import path".
// Test files are held to the rules too.
func layerOffenders(t *testing.T, files []goFile) map[string]string {
	t.Helper()
	offenders := map[string]string{}
	for _, f := range files {
		dir := pathDir(f.rel)
		for _, r := range layerRules {
			if !withinAny(dir, r.under) {
				continue
			}
			for _, imp := range f.ast.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					t.Fatalf("%s: import %s: %v", f.rel, imp.Path.Value, err)
				}
				if withinAny(p, r.forbidden) {
					offenders[dir+" -> "+strings.TrimPrefix(p, module+"/")] = r.why + "; " + f.rel
				}
			}
		}
	}
	return offenders
}

// TestLayers: pkg/ imports nothing under internal/, pkg/policy nor cobra or viper, and the stores
// and lookups import nothing of the command layer.
func TestLayers(t *testing.T) {
	checkAllowed(t, "forbidden imports", layerOffenders(t, goFiles(t, repoRoot(t))), layerImports)
}

func withinAny(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if within(path, p) {
			return true
		}
	}
	return false
}

func pathDir(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return "."
}

// outsideSpec matches a citation of a specification kept outside the repository: the
// contract, policies and background documents by file name or by section ("<NAME> §4"),
// the folder they live in beside the repository, and the saved source documents. Written
// so that this file does not match it itself.
var outsideSpec = regexp.MustCompile(`(CONTRACT|POLICIES|BACKGROUND)(\.md| ?§)|\.\./shared|seeds[/]`)

// citations lists the lines of the files under root (code, scripts, documents, generated
// CRDs; not .git, bin or vendor) that cite a specification kept outside the repository.
func citations(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// testdata holds the script tests, whose comments count: skip only what is not
			// the project's.
			if rel != "." && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := fileio.ReadFile(path, maxFileBytes)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // binary
		}
		for i, line := range strings.Split(string(b), "\n") {
			if outsideSpec.MatchString(line) {
				found = append(found, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), i+1, strings.TrimSpace(line)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestNoOutsideCitations: no file of the repository cites a specification kept outside it.
// The rules the tools implement are stated in docs/rules.md, which comments cite by section.
func TestNoOutsideCitations(t *testing.T) {
	if found := citations(t, repoRoot(t)); len(found) > 0 {
		t.Errorf("%d lines cite a specification outside the repository; cite docs/rules.md (its section) instead:\n  %s",
			len(found), strings.Join(found, "\n  "))
	}
}
