package structure

import (
	"fmt"
	"go/ast"
	"os"
	"path"
	"path/filepath"
	"regexp"
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
// tests side by side, AfterFunc and sync.WaitGroup's Go run their function on a goroutine
// of their own, and an HTTP server serves each request on one.
var goroutineCalls = map[string]bool{
	"Parallel": true, "AfterFunc": true, "Go": true,
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
// each with the reason: the package's code or its tests start a goroutine, or they call
// code of a package of the module that starts one (a direct import, and code it reaches
// in that package: racecalls_test.go; the goroutines of the package's callees are its
// callees' tests' to race-test; a callee that calls back on its goroutine is imported
// directly by the code it calls back). Packages without tests and the tools modules under
// hack/ are left out.
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
	graphs := map[string]*declGraph{} // directory -> what its non-test code starts, and where
	for dir, fs := range byDir {
		graphs[dir] = buildDeclGraph(fs)
	}
	out := map[string]string{}
	for dir, fs := range byDir {
		if !hasTests(fs) {
			continue
		}
		if why := packageRace(dir, fs, graphs); why != "" {
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
func packageRace(dir string, fs []goFile, graphs map[string]*declGraph) string {
	for _, f := range fs {
		if w := startsGoroutine(f); w != "" {
			return w
		}
	}
	deps := map[string]bool{}
	for _, f := range fs {
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, module+"/"); ok && dep != dir && graphs[dep] != nil {
				deps[dep] = true
			}
		}
	}
	sorted := make([]string, 0, len(deps))
	for dep := range deps {
		sorted = append(sorted, dep)
	}
	sort.Strings(sorted)
	for _, dep := range sorted {
		if w := importerReaches(fs, module+"/"+dep, graphs[dep]); w != "" {
			return w
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

// raceEntry is a line of the list: a package, and the seconds its tests took in the race
// run when last measured (bench/loop.sh), or -1 when the line records none.
type raceEntry struct {
	line int
	dir  string
	secs int
}

// raceSeconds is how a line records its seconds: "./pkg/gitops # 95 s".
var raceSeconds = regexp.MustCompile(`^\s*(\d+) s\b`)

// parseRaceList reads the list: one directory a line ("./pkg/manifest"), "#" to the end of
// a line a comment, which may start with the package's seconds. It returns the entries in
// their order and what is wrong with them.
func parseRaceList(text string) ([]raceEntry, []string) {
	var out []raceEntry
	var problems []string
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		line, comment, _ := strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		dir, ok := strings.CutPrefix(line, "./")
		if !ok || dir == "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %q: want a package directory as ./dir", raceList, i+1, line))
			continue
		}
		if seen[dir] {
			problems = append(problems, fmt.Sprintf("%s:%d: %s listed twice", raceList, i+1, line))
		}
		seen[dir] = true
		e := raceEntry{line: i + 1, dir: dir, secs: -1}
		if m := raceSeconds.FindStringSubmatch(comment); m != nil {
			e.secs, _ = strconv.Atoi(m[1])
		}
		out = append(out, e)
	}
	return out, append(problems, raceOrderProblems(out)...)
}

// raceOrderProblems holds the list in the order the race run needs. go test starts the
// packages' tests in the order it is given them, two at a time (-p, one a core), so a long
// package started last runs alone at the end while the other core waits: the longest go
// first. The lines that record their seconds come first, longest first; lines that record
// none (a package new to the list, not measured yet) after them.
func raceOrderProblems(entries []raceEntry) []string {
	var problems []string
	for i := 1; i < len(entries); i++ {
		prev, e := entries[i-1], entries[i]
		switch {
		case e.secs >= 0 && prev.secs < 0:
			problems = append(problems, fmt.Sprintf("%s:%d: ./%s records %d s after ./%s, which records none: "+
				"measured packages come first, longest first", raceList, e.line, e.dir, e.secs, prev.dir))
		case e.secs > prev.secs && prev.secs >= 0:
			problems = append(problems, fmt.Sprintf("%s:%d: ./%s (%d s) after ./%s (%d s): longest first "+
				"(bench/loop.sh prints the list in measured order)", raceList, e.line, e.dir, e.secs, prev.dir, prev.secs))
		}
	}
	return problems
}

// readRaceList reads the list's packages, failing t on a malformed or misordered list.
func readRaceList(t *testing.T, root string) map[string]bool {
	t.Helper()
	b, err := fileio.ReadFile(filepath.Join(root, raceList), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	entries, problems := parseRaceList(string(b))
	for _, p := range problems {
		t.Error(p)
	}
	out := map[string]bool{}
	for _, e := range entries {
		out[e.dir] = true
	}
	return out
}

// TestRaceListOrder shows the order check at work on lists made for it.
func TestRaceListOrder(t *testing.T) {
	for _, c := range []struct {
		list string
		want string // in the one problem found, or "" for none
	}{
		{"./a # 90 s\n./b # 12 s: why\n./c # 12 s\n./d\n./e # no figure\n", ""},
		{"./a # 12 s\n./b # 90 s\n", "./b (90 s) after ./a (12 s): longest first"},
		{"./a # 12 s\n./new\n./b # 3 s\n", "./b records 3 s after ./new, which records none"},
		{"./a # 5 s\n./a # 3 s\n", "./a listed twice"},
		{"pkg/a\n", `"pkg/a": want a package directory as ./dir`},
	} {
		_, problems := parseRaceList(c.list)
		switch {
		case c.want == "" && len(problems) > 0:
			t.Errorf("%q: %v, want no problem", c.list, problems)
		case c.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], c.want)):
			t.Errorf("%q: %v, want one problem with %q", c.list, problems, c.want)
		}
	}
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
// fails here; and one that found goroutines in code a package never reaches (and kept it
// in the race run for nothing) too.
func TestRacePackagesFound(t *testing.T) {
	root := t.TempDir()
	imp := func(pkg string) string { return "import \"" + module + "/pkg/" + pkg + "\"\n\n" }
	writeTree(t, root, map[string]string{
		"go.mod": "module " + module + "\n",
		"pkg/spawn/s.go": "package spawn\n\nconst Name = \"spawn\"\n\nfunc Run(f func()) { start(f) }\n\n" +
			"func start(f func()) { go f() }\n\ntype W struct{}\n\nfunc (*W) Begin() { go func() {}() }\n\n" +
			"func (*W) Quiet() {}\n\ntype Q struct{}\n\nfunc (Q) Calm() {}\n\nfunc NewW() any { return &W{} }\n\n" +
			"func NewQ() Q { return Q{} }\n",
		"pkg/spawn/s_test.go":  "package spawn\n",
		"pkg/caller/c.go":      "package caller\n\n" + imp("spawn") + "func Do() { spawn.Run(nil) }\n",
		"pkg/caller/c_test.go": "package caller\n",
		"pkg/calm/c.go":        "package calm\n\n" + imp("spawn") + "var _ = spawn.Name\n\nvar _ = spawn.NewQ().Calm\n",
		"pkg/calm/c_test.go":   "package calm\n",
		"pkg/method/m.go":      "package method\n",
		"pkg/method/m_test.go": "package method\n\n" + imp("spawn") + "func f(w *spawn.W) { w.Begin() }\n",
		"pkg/made/m.go":        "package made\n\n" + imp("spawn") + "var _ = spawn.NewW\n",
		"pkg/made/m_test.go":   "package made\n",
		"pkg/boot/b.go":        "package boot\n\nfunc init() { go func() {}() }\n",
		"pkg/boot/b_test.go":   "package boot\n",
		"pkg/booted/b.go":      "package booted\n\nimport _ \"" + module + "/pkg/boot\"\n",
		"pkg/booted/b_test.go": "package booted\n",
		"pkg/far/f.go":         "package far\n\n" + imp("caller") + "func F() { caller.Do() }\n",
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
	// calm refers to spawn's constant and to a method of a type without goroutines; far
	// calls caller, which starts none itself (spawn's are caller's to race-test).
	assertKeys(t, "racePackages", got, "pkg/spawn", "pkg/caller", "pkg/method", "pkg/made",
		"pkg/boot", "pkg/booted", "pkg/par", "pkg/srv", "pkg/live", "pkg/timer")
}
