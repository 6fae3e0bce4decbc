package structure

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The command layer's rules (CONTRIBUTING.md, "Layers"):
//   - a command package imports no other command (its own subcommands aside): logic two
//     commands share lives in a library beside them, internal/cmd/NOUN/shared (or the
//     older NOUNutil), or, for several nouns, internal/cmd/teamedit, as gh keeps it;
//   - nothing outside the command layer imports it;
//   - commands assert no optional store interfaces: store.Store is whole, and what only a
//     server does is store.Store.Server;
//   - the Factory stops at NewCmd and Complete (a ceiling that only comes down).

// cmdLibraries are the packages under internal/cmd that hold no command, by directory.
// Libraries of one noun are found by name (shared, NOUNutil); these serve several nouns.
var cmdLibraries = map[string]bool{
	"internal/cmd/root":     true,
	"internal/cmd/factory":  true,
	"internal/cmd/cmdtest":  true,
	"internal/cmd/teamedit": true,
}

// assembly are the packages that put the commands together into the binaries.
var assembly = []string{"internal/cmd/root", "internal/cli", "internal/completion", "internal/docgen"}

// isLibrary reports whether dir, under internal/cmd, holds shared logic, not a command.
func isLibrary(dir string) bool {
	if cmdLibraries[dir] {
		return true
	}
	base := dir[strings.LastIndex(dir, "/")+1:]
	return base == "shared" || strings.HasSuffix(base, "util")
}

// commandImportOffenders are the imports of a command package by the rules above, by
// "package dir -> import path" (test files included).
func commandImportOffenders(t *testing.T, files []goFile) map[string]string {
	t.Helper()
	offenders := map[string]string{}
	for _, f := range files {
		dir := pathDir(f.rel)
		for _, imp := range f.ast.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatalf("%s: import %s: %v", f.rel, imp.Path.Value, err)
			}
			q := strings.TrimPrefix(p, module+"/")
			if q == p || !within(q, "internal/cmd") || withinAny(dir, assembly) {
				continue
			}
			switch {
			case !within(dir, "internal/cmd"):
				offenders[dir+" -> "+q] = "only the binaries' assembly imports the command layer; " + f.rel
			case within(q, dir), isLibrary(q):
			default:
				offenders[dir+" -> "+q] = "a command imports no other command: move what both need to a shared package of the noun; " + f.rel
			}
		}
	}
	return offenders
}

// commandImports are today's exceptions, each with its reason.
var commandImports = map[string]string{}

// TestCommandImports: no sideways imports between commands, and nothing outside the
// command layer imports it.
func TestCommandImports(t *testing.T) {
	checkAllowed(t, "forbidden imports of commands", commandImportOffenders(t, goFiles(t, repoRoot(t))), commandImports)
}

// storeAssertions are the type assertions onto interfaces of internal/store, and onto
// interfaces the command's own package declares (a store probed for a method its Store
// does not name), in the command layer and its completion, by "file:line".
// internal/cmd/factory is counted apart (factoryAssertions).
func storeAssertions(files []goFile) []string {
	local := map[string]map[string]bool{} // package dir -> its interface types
	for _, f := range files {
		for _, d := range f.ast.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					if _, ok := ts.Type.(*ast.InterfaceType); ok {
						dir := pathDir(f.rel)
						if local[dir] == nil {
							local[dir] = map[string]bool{}
						}
						local[dir][ts.Name.Name] = true
					}
				}
			}
		}
	}
	var found []string
	for _, f := range files {
		dir := pathDir(f.rel)
		if !withinAny(dir, []string{"internal/cmd", "internal/completion"}) || within(dir, "internal/cmd/factory") || f.test {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			ta, ok := n.(*ast.TypeAssertExpr)
			if !ok || ta.Type == nil {
				return true
			}
			switch t := ta.Type.(type) {
			case *ast.SelectorExpr:
				if id, ok := t.X.(*ast.Ident); ok && id.Name == "store" {
					found = append(found, fmt.Sprintf("%s:%d", f.rel, f.fset.Position(ta.Pos()).Line))
				}
			case *ast.Ident:
				if local[dir][t.Name] {
					found = append(found, fmt.Sprintf("%s:%d", f.rel, f.fset.Position(ta.Pos()).Line))
				}
			}
			return true
		})
	}
	return found
}

// factoryAssertions are the type assertions of internal/cmd/factory's non-test files:
// StoreAs's one, which narrows the store to a command's Store (each command's
// compile-time proof, var _ Store = store.Store(nil), is what makes it hold).
func factoryAssertions(files []goFile) []string {
	var found []string
	for _, f := range files {
		if f.test || !within(pathDir(f.rel), "internal/cmd/factory") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			if ta, ok := n.(*ast.TypeAssertExpr); ok && ta.Type != nil {
				found = append(found, fmt.Sprintf("%s:%d", f.rel, f.fset.Position(ta.Pos()).Line))
			}
			return true
		})
	}
	return found
}

// maxFactoryAssertions: StoreAs's; Close's probe for an io.Closer (the offline store's
// lock); factory.Run's probes of the Options for their hooks (Completer, Validator, their
// shared forms), the Deps and Graceful.
const maxFactoryAssertions = 8

// TestFactoryAssertionsCounted: the Factory's run-time assertions are counted, so a new
// one is a decision, not an accident.
func TestFactoryAssertionsCounted(t *testing.T) {
	if got := factoryAssertions(goFiles(t, repoRoot(t))); len(got) != maxFactoryAssertions {
		t.Errorf("internal/cmd/factory has %d type assertions, %d counted: %s", len(got), maxFactoryAssertions, strings.Join(got, ", "))
	}
}

// TestNoStoreAssertions: commands use store.Store whole and store.Store.Server for what
// only a server does; they assert no optional interfaces.
func TestNoStoreAssertions(t *testing.T) {
	if found := storeAssertions(goFiles(t, repoRoot(t))); len(found) > 0 {
		t.Errorf("%d type assertions onto store interfaces in internal/cmd; use store.Store, or Server() for what only a live cluster does:\n  %s",
			len(found), strings.Join(found, "\n  "))
	}
}

// maxFactoryFuncs is how many functions below NewCmd and Complete still take the
// Factory. Lower it as commands move to run(opts) over their Options; it never rises.
const maxFactoryFuncs = 0

// factoryFuncs are the non-test functions, other than NewCmd, New...Cmd and Complete
// (CompleteShared),
// with a *factory.Factory parameter, outside the assembly of the binaries.
func factoryFuncs(files []goFile) []string {
	var found []string
	for _, f := range files {
		if f.test || withinAny(pathDir(f.rel), assembly) || within(pathDir(f.rel), "internal/cmd/factory") {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name == "NewCmd" || fn.Name.Name == "Complete" || fn.Name.Name == "CompleteShared" ||
				(strings.HasPrefix(fn.Name.Name, "New") && strings.HasSuffix(fn.Name.Name, "Cmd")) {
				continue
			}
			for _, p := range fn.Type.Params.List {
				if star, ok := p.Type.(*ast.StarExpr); ok {
					if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Factory" {
						found = append(found, f.rel+":"+funcName(fn))
					}
				}
			}
		}
	}
	return found
}

// TestFactoryStopsAtComplete: the count of functions below NewCmd and Complete that take
// the Factory is at most maxFactoryFuncs, and equal to it, so the ceiling follows it down.
func TestFactoryStopsAtComplete(t *testing.T) {
	found := factoryFuncs(goFiles(t, repoRoot(t)))
	switch {
	case len(found) > maxFactoryFuncs:
		t.Errorf("%d functions below NewCmd/Complete take the Factory, more than %d: resolve what run needs into its Options in Complete:\n  %s",
			len(found), maxFactoryFuncs, strings.Join(found, "\n  "))
	case len(found) < maxFactoryFuncs:
		t.Errorf("only %d functions below NewCmd/Complete take the Factory now: lower maxFactoryFuncs to %d", len(found), len(found))
	}
}

// flagWord matches a command-line flag in a message: "--name" at the start or after a
// space or parenthesis.
var flagWord = regexp.MustCompile(`(^|[\s(])--[a-z][a-z0-9-]+`)

// flagWordOffenders are the string literals of non-test files of pkg/policy and
// pkg/manifest that name a flag, by "path:line".
func flagWordOffenders(files []goFile) map[string]string {
	offenders := map[string]string{}
	for _, f := range files {
		if f.test || !withinAny(pathDir(f.rel), []string{"pkg/policy", "pkg/manifest"}) {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if ok && lit.Kind == token.STRING && flagWord.MatchString(lit.Value) {
				offenders[fmt.Sprintf("%s:%d", f.rel, f.fset.Position(lit.Pos()).Line)] = lit.Value
			}
			return true
		})
	}
	return offenders
}

// TestNoFlagsInLibraries: pkg/policy and pkg/manifest report what is needed; only the
// command layer names flags.
func TestNoFlagsInLibraries(t *testing.T) {
	checkAllowed(t, "messages naming flags", flagWordOffenders(goFiles(t, repoRoot(t))), flagWords)
}

// maxWholeStores is how many places in the command layer still name store.Store, where a
// command's Options should carry its own store interface (CONTRIBUTING.md, "A command's
// store"). Lower it as commands narrow; it never rises.
const maxWholeStores = 0

// wholeStores are the uses of store.Store in non-test files under internal/cmd, other than
// the factory and test helpers, and other than a package's compile-time proof that the
// store implements its interface (var _ Store = store.Store(nil)), by "file:line".
func wholeStores(files []goFile) []string {
	var found []string
	for _, f := range files {
		dir := pathDir(f.rel)
		if f.test || !within(dir, "internal/cmd") || withinAny(dir, []string{"internal/cmd/factory", "internal/cmd/cmdtest", "internal/cmd/root"}) {
			continue
		}
		proofs := map[ast.Node]bool{}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "_" {
				for _, v := range vs.Values {
					ast.Inspect(v, func(m ast.Node) bool { proofs[m] = true; return true })
				}
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || proofs[n] || sel.Sel.Name != "Store" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "store" {
				found = append(found, fmt.Sprintf("%s:%d", f.rel, f.fset.Position(sel.Pos()).Line))
			}
			return true
		})
	}
	return found
}

// TestCommandsNarrowTheStore: a command's Options carry an interface of its own, made of
// the role interfaces of internal/store it uses, so run depends on what it uses and a
// unit test's fake implements no more; the count of store.Store uses is at most
// maxWholeStores, and equal to it.
func TestCommandsNarrowTheStore(t *testing.T) {
	found := wholeStores(goFiles(t, repoRoot(t)))
	switch {
	case len(found) > maxWholeStores:
		t.Errorf("%d uses of store.Store in the command layer, more than %d: declare the command's own Store interface from the role interfaces it uses:\n  %s",
			len(found), maxWholeStores, strings.Join(found, "\n  "))
	case len(found) < maxWholeStores:
		t.Errorf("only %d uses of store.Store in the command layer now: lower maxWholeStores to %d", len(found), len(found))
	}
}

// teamFlagDeclarations are the places outside cmdutil.TeamFlag that declare a flag named
// "team" with pflag's own functions (by "path:line").
func teamFlagDeclarations(files []goFile) []string {
	var out []string
	for _, f := range files {
		if f.test || f.rel == "internal/cmdutil/teamflag.go" {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "String") {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Value == `"team"` {
					out = append(out, fmt.Sprintf("%s:%d", f.rel, f.fset.Position(call.Pos()).Line))
					break
				}
			}
			return true
		})
	}
	return out
}

// TestOneTeamFlag: every command takes --team through cmdutil.TeamFlag, so the flag is
// declared one way (its completion and the config file's default team find it by name).
func TestOneTeamFlag(t *testing.T) {
	if got := teamFlagDeclarations(goFiles(t, repoRoot(t))); len(got) > 0 {
		t.Errorf("--team declared outside cmdutil.TeamFlag:\n  %s", strings.Join(got, "\n  "))
	}
}

// shapeSignatures are what factory.Run calls by these names (its Completer, Validator,
// SharedCompleter and SharedValidator), written as the AST prints their parameters and
// results.
var shapeSignatures = map[string]string{
	"Complete":       "(*factory.Factory, *cobra.Command, []string) error",
	"CompleteShared": "(*factory.Factory, *cobra.Command, []string) error",
	"Validate":       "() error",
	"ValidateShared": "() error",
}

// misshapen are the methods of the command layer named as factory.Run's hooks whose
// signature is not the hook's: factory.Run would never call them, and what they check
// would silently not be checked.
func misshapen(files []goFile) []string {
	var found []string
	for _, f := range files {
		if f.test || !within(pathDir(f.rel), "internal/cmd") {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			want, named := shapeSignatures[fn.Name.Name]
			if named && signature(fn.Type) != want {
				found = append(found, fmt.Sprintf("%s:%s %s", f.rel, funcName(fn), signature(fn.Type)))
			}
		}
	}
	return found
}

// signature is "(params) results" with types only.
func signature(ft *ast.FuncType) string {
	list := func(fl *ast.FieldList) []string {
		var out []string
		if fl == nil {
			return out
		}
		for _, p := range fl.List {
			n := len(p.Names)
			if n == 0 {
				n = 1
			}
			for range n {
				out = append(out, types.ExprString(p.Type))
			}
		}
		return out
	}
	res := strings.Join(list(ft.Results), ", ")
	return "(" + strings.Join(list(ft.Params), ", ") + ") " + res
}

// TestHooksHaveTheirShape: every Complete and Validate of the command layer is the one
// factory.Run calls (kubectl's Complete(f, cmd, args) error and a pure Validate() error).
func TestHooksHaveTheirShape(t *testing.T) {
	if got := misshapen(goFiles(t, repoRoot(t))); len(got) > 0 {
		t.Errorf("methods named as factory.Run's hooks with another signature (never called):\n  %s", strings.Join(got, "\n  "))
	}
}

// validateWrites are the assignments in a Validate (ValidateShared) of the command layer
// to a field of its receiver: Validate is pure, and what it would set belongs in Complete.
func validateWrites(files []goFile) []string {
	var found []string
	for _, f := range files {
		if f.test || !within(pathDir(f.rel), "internal/cmd") {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil || (fn.Name.Name != "Validate" && fn.Name.Name != "ValidateShared") ||
				len(fn.Recv.List) == 0 || len(fn.Recv.List[0].Names) == 0 {
				continue
			}
			recv := fn.Recv.List[0].Names[0].Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var lhs []ast.Expr
				switch st := n.(type) {
				case *ast.AssignStmt:
					lhs = st.Lhs
				case *ast.IncDecStmt:
					lhs = []ast.Expr{st.X}
				}
				for _, e := range lhs {
					if rootIdent(e) == recv {
						found = append(found, fmt.Sprintf("%s:%d", f.rel, f.fset.Position(e.Pos()).Line))
					}
				}
				return true
			})
		}
	}
	return found
}

// rootIdent is the identifier an expression such as o.a.b[i] starts from.
func rootIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// TestValidateWritesNothing: no Validate of the command layer sets a field of its Options
// (kubectl's meaning: Complete fills the Options in, Validate only checks them).
func TestValidateWritesNothing(t *testing.T) {
	if got := validateWrites(goFiles(t, repoRoot(t))); len(got) > 0 {
		t.Errorf("Validate methods that write their Options (move the writes to Complete):\n  %s", strings.Join(got, "\n  "))
	}
}
