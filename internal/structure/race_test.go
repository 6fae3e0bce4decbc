package structure

import (
	"fmt"
	"go/ast"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// raceList names the packages whose tests `make unit` runs under the race detector; every
// other package's tests run once without it. TestRacePackages keeps it equal to what
// racePackages finds.
const raceList = "hack/race-packages.txt"

// goroutineImports start goroutines that run code of the importer's: a signal handler, an
// HTTP test server's handlers, an errgroup's functions. internal/testenv is the live control
// plane, whose clients (client-go's watches, informers and transports) call back on their
// own goroutines.
var goroutineImports = map[string]bool{
	"os/signal":                  true,
	"net/http/httptest":          true,
	"golang.org/x/sync/errgroup": true,
	module + "/internal/testenv": true,
}

// goroutineCalls are selectors that run a function on another goroutine: t.Parallel runs
// tests side by side, AfterFunc runs its function on a goroutine of its own, and an HTTP
// server serves each request on one.
var goroutineCalls = map[string]bool{
	"Parallel": true, "AfterFunc": true,
	"Serve": true, "ServeTLS": true, "ListenAndServe": true, "ListenAndServeTLS": true,
}

// startsGoroutine says where a file starts a goroutine ("file:line: what"), or "".
func startsGoroutine(f goFile) string {
	for _, im := range f.ast.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); goroutineImports[p] {
			return fmt.Sprintf("%s:%d: imports %s", f.rel, f.fset.Position(im.Pos()).Line, p)
		}
	}
	where := ""
	ast.Inspect(f.ast, func(n ast.Node) bool {
		if where != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			where = fmt.Sprintf("%s:%d: go statement", f.rel, f.fset.Position(n.Pos()).Line)
		case *ast.SelectorExpr:
			if goroutineCalls[n.Sel.Name] {
				where = fmt.Sprintf("%s:%d: %s", f.rel, f.fset.Position(n.Pos()).Line, n.Sel.Name)
			}
		}
		return true
	})
	return where
}

// racePackages returns the packages of the module (their directories) whose tests can run
// two goroutines over the same memory, the only place the race detector finds anything,
// each with the reason: the package's code or its tests start a goroutine, or they import a
// package of the module whose own code starts one (a direct import: the goroutines of the
// package's callees are its callees' tests' to race-test; a callee that calls back on its
// goroutine is imported directly by the code it calls back). Packages without tests and the
// tools modules under hack/ are left out.
func racePackages(t *testing.T, root string, files []goFile) map[string]string {
	t.Helper()
	nested := nestedModules(t, root)
	byDir := map[string][]goFile{}
	for _, f := range files {
		dir := path.Dir(f.rel)
		if !nested(dir) {
			byDir[dir] = append(byDir[dir], f)
		}
	}
	starts := map[string]string{} // directory -> where its non-test code starts a goroutine
	for dir, fs := range byDir {
		for _, f := range fs {
			if w := startsGoroutine(f); w != "" && !f.test {
				starts[dir] = w
				break
			}
		}
	}
	out := map[string]string{}
	for dir, fs := range byDir {
		if !hasTests(fs) {
			continue
		}
		if why := packageRace(dir, fs, starts); why != "" {
			out[dir] = why
		}
	}
	return out
}

func hasTests(fs []goFile) bool {
	for _, f := range fs {
		if f.test {
			return true
		}
	}
	return false
}

// packageRace says why a package's tests need the race detector, or "".
func packageRace(dir string, fs []goFile, starts map[string]string) string {
	for _, f := range fs {
		if w := startsGoroutine(f); w != "" {
			return w
		}
	}
	for _, f := range fs {
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			dep, ok := strings.CutPrefix(p, module+"/")
			if ok && dep != dir && starts[dep] != "" {
				return fmt.Sprintf("%s imports %s (%s)", f.rel, dep, starts[dep])
			}
		}
	}
	return ""
}

// nestedModules reports whether a directory belongs to a module of its own (hack/lint,
// hack/k8s-tools, ...): those are not the project's packages and `make unit` never tests them.
func nestedModules(t *testing.T, root string) func(dir string) bool {
	t.Helper()
	memo := map[string]bool{".": false}
	var nested func(dir string) bool
	nested = func(dir string) bool {
		if v, ok := memo[dir]; ok {
			return v
		}
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir), "go.mod"))
		v := err == nil || nested(path.Dir(dir))
		memo[dir] = v
		return v
	}
	return nested
}

// readRaceList reads the list: one directory a line ("./pkg/manifest"), "#" to the end of a
// line a comment.
func readRaceList(t *testing.T, root string) map[string]bool {
	t.Helper()
	b, err := fileio.ReadFile(filepath.Join(root, raceList), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		dir, ok := strings.CutPrefix(line, "./")
		if !ok || dir == "" {
			t.Fatalf("%s:%d: %q: want a package directory as ./dir", raceList, i+1, line)
		}
		if out[dir] {
			t.Errorf("%s:%d: %s listed twice", raceList, i+1, line)
		}
		out[dir] = true
	}
	return out
}

// TestRacePackages keeps the race detector where it can find races: the list `make unit`
// reads is exactly the packages whose tests can run goroutines over shared memory.
func TestRacePackages(t *testing.T) {
	root := repoRoot(t)
	want := racePackages(t, root, goFiles(t, root))
	listed := readRaceList(t, root)
	var missing, extra []string
	for dir, why := range want {
		if !listed[dir] {
			missing = append(missing, fmt.Sprintf("./%s (%s)", dir, why))
		}
	}
	for dir := range listed {
		if _, ok := want[dir]; !ok {
			extra = append(extra, "./"+dir)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, m := range missing {
		t.Errorf("%s: missing %s: its tests can race, add it", raceList, m)
	}
	for _, e := range extra {
		t.Errorf("%s: %s starts no goroutine and imports no package that does (or has no tests): remove it", raceList, e)
	}
}

// TestRacePackagesFound runs the rule on a small repository made for it, so that a rule
// that stopped finding a kind of goroutine (and moved its package out of the race run)
// fails here.
func TestRacePackagesFound(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":               "module " + module + "\n",
		"pkg/spawn/s.go":       "package spawn\n\nfunc Run(f func()) { go f() }\n",
		"pkg/spawn/s_test.go":  "package spawn\n",
		"pkg/caller/c.go":      "package caller\n\nimport _ \"" + module + "/pkg/spawn\"\n",
		"pkg/caller/c_test.go": "package caller\n",
		"pkg/far/f.go":         "package far\n\nimport _ \"" + module + "/pkg/caller\"\n",
		"pkg/far/f_test.go":    "package far\n",
		"pkg/par/p_test.go":    "package par\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { t.Parallel() }\n",
		"pkg/srv/s_test.go":    "package srv\n\nimport _ \"net/http/httptest\"\n",
		"pkg/live/l_test.go":   "package live\n\nimport _ \"" + module + "/internal/testenv\"\n",
		"pkg/timer/t.go":       "package timer\n\nimport \"time\"\n\nvar _ = time.AfterFunc\n",
		"pkg/timer/t_test.go":  "package timer\n",
		"pkg/plain/p.go":       "package plain\n\nfunc Add(a, b int) int { return a + b }\n",
		"pkg/plain/p_test.go":  "package plain\n",
		"pkg/notests/n.go":     "package notests\n\nfunc Run(f func()) { go f() }\n",
		"hack/tool/go.mod":     "module tool\n",
		"hack/tool/t_test.go":  "package tool\n\nfunc f() { go f() }\n",
	})
	got := racePackages(t, root, goFiles(t, root))
	assertKeys(t, "racePackages", got,
		"pkg/spawn", "pkg/caller", "pkg/par", "pkg/srv", "pkg/live", "pkg/timer")
}
