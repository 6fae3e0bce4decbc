package structure

import (
	"go/ast"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Every command that writes takes --dry-run, registered one way (factory.AddDryRun), so it
// means the same everywhere: nothing written, the whole preflight run, what would be
// written printed (CONTRIBUTING.md, "A command").
//
// The writes are the methods of internal/store's interfaces named as writes (Create,
// Update, Delete, ...); a command writes when its package calls one, or calls a function
// of a library of the command layer it imports that (itself or through the library's own
// functions) calls one.

// writeVerb is how the store names a write.
var writeVerb = regexp.MustCompile(`^(Create|Update|Delete|Scale|Upgrade|Migrate|Replace|Set|Annotate|Edit|Patch|Apply)[A-Z]`)

// storeWrites are the write methods declared by the interfaces of internal/store/store.go.
func storeWrites(files []goFile) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		if f.rel != "internal/store/store.go" {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			it, ok := n.(*ast.InterfaceType)
			if !ok {
				return true
			}
			for _, m := range it.Methods.List {
				for _, name := range m.Names {
					if writeVerb.MatchString(name.Name) {
						out[name.Name] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// calledNames are the names a file calls (f(), x.f()), by function declaration ("" for
// calls outside any function).
func calledNames(f *ast.File) map[string][]string {
	out := map[string][]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch e := call.Fun.(type) {
			case *ast.Ident:
				out[fn.Name.Name] = append(out[fn.Name.Name], e.Name)
			case *ast.SelectorExpr:
				out[fn.Name.Name] = append(out[fn.Name.Name], e.Sel.Name)
			case *ast.IndexExpr: // a generic function called with its type argument
				if sel, ok := e.X.(*ast.SelectorExpr); ok {
					out[fn.Name.Name] = append(out[fn.Name.Name], sel.Sel.Name)
				}
			}
			return true
		})
	}
	return out
}

// libraryWriters are, for each library of the command layer, the names of its functions
// and methods that write through the store.
func libraryWriters(files []goFile, writes map[string]bool) map[string]map[string]bool {
	calls := map[string]map[string][]string{} // dir -> func -> names called
	for _, f := range files {
		dir := pathDir(f.rel)
		if f.test || !within(dir, "internal/cmd") || !isLibrary(dir) {
			continue
		}
		if calls[dir] == nil {
			calls[dir] = map[string][]string{}
		}
		for fn, names := range calledNames(f.ast) {
			calls[dir][fn] = append(calls[dir][fn], names...)
		}
	}
	out := map[string]map[string]bool{}
	for dir, fns := range calls {
		w := map[string]bool{}
		for changed := true; changed; {
			changed = false
			for fn, names := range fns {
				if w[fn] {
					continue
				}
				for _, n := range names {
					if writes[n] || w[n] {
						w[fn], changed = true, true
						break
					}
				}
			}
		}
		out[dir] = w
	}
	return out
}

// dryRunOffenders are the command packages that write through the store and register no
// --dry-run, by directory, with the write that makes them a writer.
func dryRunOffenders(files []goFile) map[string]string {
	writes := storeWrites(files)
	libs := libraryWriters(files, writes)
	type command struct {
		write     string
		hasDryRun bool
	}
	cmds := map[string]*command{}
	for _, f := range files {
		dir := pathDir(f.rel)
		if f.test || !within(dir, "internal/cmd") || isLibrary(dir) {
			continue
		}
		c := cmds[dir]
		if c == nil {
			c = &command{}
			cmds[dir] = c
		}
		imported := map[string]bool{}
		for _, imp := range f.ast.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil {
				imported[strings.TrimPrefix(p, module+"/")] = true
			}
		}
		for _, names := range calledNames(f.ast) {
			for _, n := range names {
				if n == "AddDryRun" {
					c.hasDryRun = true
				}
				if c.write != "" {
					continue
				}
				if writes[n] {
					c.write = n
				}
				for lib, w := range libs {
					if imported[lib] && w[n] {
						c.write = filepath.Base(lib) + "." + n
					}
				}
			}
		}
	}
	out := map[string]string{}
	for dir, c := range cmds {
		if c.write != "" && !c.hasDryRun {
			out[dir] = "writes (" + c.write + ") and registers no --dry-run: call factory.AddDryRun(cmd, f) in NewCmd"
		}
	}
	return out
}

// TestWritersTakeDryRun: every command that writes through the store has --dry-run.
func TestWritersTakeDryRun(t *testing.T) {
	files := goFiles(t, repoRoot(t))
	if len(storeWrites(files)) == 0 {
		t.Fatal("no write methods found in internal/store/store.go")
	}
	offenders := dryRunOffenders(files)
	var bad []string
	for dir, why := range offenders {
		bad = append(bad, dir+": "+why)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d commands write without --dry-run:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
}

// TestDryRunCheckFindsWriters runs the check on a small repository made for it: a command
// that writes directly, one that writes through its noun's shared package, one that
// registers the flag, and one that only reads.
func TestDryRunCheckFindsWriters(t *testing.T) {
	root := t.TempDir()
	imp := func(p string) string { return "import \"" + module + "/" + p + "\"\n" }
	writeTree(t, root, map[string]string{
		"internal/store/store.go":              "package store\n\ntype ClusterWriter interface {\n\tScaleCluster() error\n\tGetCluster() error\n}\n",
		"internal/cmd/cluster/shared/s.go":     "package shared\n\nfunc Apply(s any) { apply(s) }\n\nfunc apply(s any) { s.ScaleCluster() }\n\nfunc Read(s any) { s.GetCluster() }\n",
		"internal/cmd/cluster/scale/s.go":      "package scale\n\nfunc run(s any) { s.ScaleCluster() }\n",
		"internal/cmd/cluster/freeze/f.go":     "package freeze\n\n" + imp("internal/cmd/cluster/shared") + "\nfunc run(s any) { shared.Apply(s) }\n",
		"internal/cmd/cluster/list/l.go":       "package list\n\n" + imp("internal/cmd/cluster/shared") + "\nfunc run(s any) { shared.Read(s) }\n",
		"internal/cmd/cluster/extend/e.go":     "package extend\n\nfunc NewCmd(cmd, f any) { factory.AddDryRun(cmd, f) }\n\nfunc run(s any) { s.ScaleCluster() }\n",
		"internal/cmd/cluster/scale/s_test.go": "package scale\n\nfunc TestX() { factory.AddDryRun(nil, nil) }\n",
	})
	assertKeys(t, "dryRunOffenders", dryRunOffenders(goFiles(t, root)),
		"internal/cmd/cluster/scale", "internal/cmd/cluster/freeze")
}
