package structure

import (
	"fmt"
	"go/ast"
	"path"
	"sort"
	"strconv"
	"strings"
)

// A package of the module whose code starts a goroutine somewhere puts an importer's tests
// under the race detector only when the importer reaches that code: a package that reads a
// file through pkg/fileio never runs the signal handler of its lock. So the goroutine
// starts of a package are found per declaration, and spread to every declaration of the
// package that refers to one; an importer races when it refers to one of those.
//
// The references are read from the syntax alone, without types, so the reading is wide,
// never narrow:
//   - any identifier with the name of a top-level declaration refers to it (a local
//     variable that shadows it too);
//   - `x.M`, where x is not a package, refers to every method named M of the package
//     (the receiver's type is not known), in the package and in its importers;
//   - a method called through an interface is called by its name, which is matched; and
//     code that makes a value of a type (T{...}, new(T)) refers to all of its methods, as
//     other packages may call them through an interface (net/http calls a RoundTrip);
//   - init functions and the values of package-level variables run for every importer:
//     a goroutine they start puts every importer under race;
//   - a dot import of a package that starts goroutines counts as reaching them, and so
//     does a blank import of one whose init functions or variables' values start one.

// declGraph is what one package's non-test code starts, declaration by declaration.
type declGraph struct {
	starts  map[string]string   // declaration ("F", "V", "T.M") -> where the goroutine starts
	methods map[string][]string // method name -> its declarations ("T.M")
	always  string              // where code every importer runs (init, variables) starts one
}

// any says where the package starts a goroutine at all, or "".
func (g *declGraph) any() string {
	if g.always != "" {
		return g.always
	}
	keys := make([]string, 0, len(g.starts))
	for k := range g.starts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return g.starts[keys[0]]
}

// importNames maps the names a file's imports go by to their paths.
func importNames(f goFile) map[string]string {
	out := map[string]string{}
	for _, im := range f.ast.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = p
	}
	return out
}

// declKey names a top-level function or method: "F" or "T.M".
func declKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return typeName(fd.Recv.List[0].Type) + "." + fd.Name.Name
}

// declInfo is one top-level declaration: where it starts a goroutine itself, and what it
// refers to (top-level names, and ".M" for a method name called on a value).
type declInfo struct {
	start string
	refs  map[string]bool
}

// scanDecl reads one declaration of file f.
func scanDecl(f goFile, n ast.Node, imports map[string]string) declInfo {
	d := declInfo{refs: map[string]bool{}}
	d.scan(f, n, imports, false)
	return d
}

// scanValue reads a package-level variable's value as it runs when the package is
// initialized: a function literal's body runs then only when the literal is called there.
func scanValue(f goFile, v ast.Expr, imports map[string]string) declInfo {
	d := declInfo{refs: map[string]bool{}}
	d.scan(f, v, imports, true)
	return d
}

// scan adds what n starts and refers to; atInit leaves out the bodies of function
// literals not called on the spot.
func (d *declInfo) scan(f goFile, n ast.Node, imports map[string]string, atInit bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		if d.start == "" {
			d.start = startAt(f, n, imports)
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return !atInit
		case *ast.CompositeLit:
			if name := typeName(n.Type); name != "" {
				d.refs["{}"+name] = true
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
				if name := typeName(n.Args[0]); name != "" {
					d.refs["{}"+name] = true
				}
			}
			if lit, ok := n.Fun.(*ast.FuncLit); ok && atInit {
				d.scan(f, lit.Body, imports, false)
				for _, a := range n.Args {
					d.scan(f, a, imports, true)
				}
				return false
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				if _, isPkg := imports[id.Name]; isPkg {
					return false // another package's name, not one of ours
				}
			}
			d.refs["."+n.Sel.Name] = true
			d.scan(f, n.X, imports, atInit)
			return false
		case *ast.Ident:
			d.refs[n.Name] = true
		}
		return true
	})
}

// typeName is the name of a type of this package as a composite literal or new names it:
// T, *T, T[X]; or "".
func typeName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// startAt says where node n of file f starts a goroutine itself, or "": a go statement, a
// call that runs a function on another goroutine, or a use of a package that does.
func startAt(f goFile, n ast.Node, imports map[string]string) string {
	at := func(what string) string {
		return fmt.Sprintf("%s:%d: %s", f.rel, f.fset.Position(n.Pos()).Line, what)
	}
	switch n := n.(type) {
	case *ast.GoStmt:
		return at("go statement")
	case *ast.SelectorExpr:
		if id, ok := n.X.(*ast.Ident); ok && goroutineImports[imports[id.Name]] {
			return at(id.Name + "." + n.Sel.Name)
		}
		if goroutineCalls[n.Sel.Name] {
			return at(n.Sel.Name)
		}
	}
	return ""
}

// buildDeclGraph reads a package's non-test files into its declGraph.
func buildDeclGraph(fs []goFile) *declGraph {
	g := &declGraph{starts: map[string]string{}, methods: map[string][]string{}}
	decls := map[string][]declInfo{} // a name may be declared once per build-tagged file
	var roots []declInfo             // init functions and variables' values
	add := func(key string, d declInfo) { decls[key] = append(decls[key], d) }
	for _, f := range fs {
		if f.test {
			continue
		}
		imports := importNames(f)
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if im.Name != nil && (im.Name.Name == "_" || im.Name.Name == ".") && goroutineImports[p] && g.always == "" {
				g.always = fmt.Sprintf("%s:%d: imports %s", f.rel, f.fset.Position(im.Pos()).Line, p)
			}
		}
		for _, decl := range f.ast.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Body == nil {
					continue
				}
				d := scanDecl(f, decl.Body, imports) // the signature's types run nothing
				if decl.Recv == nil && decl.Name.Name == "init" {
					roots = append(roots, d)
					continue
				}
				key := declKey(decl)
				add(key, d)
				if _, m, ok := strings.Cut(key, "."); ok {
					g.methods[m] = append(g.methods[m], key)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					s, ok := spec.(*ast.ValueSpec)
					if !ok {
						continue // a type runs nothing: its methods are reached by their names
					}
					for _, v := range s.Values {
						d := scanDecl(f, v, imports) // what calling the variable's value runs
						for _, name := range s.Names {
							add(name.Name, d)
						}
						roots = append(roots, scanValue(f, v, imports))
					}
				}
			}
		}
	}
	g.spread(decls)
	for _, r := range roots {
		if g.always == "" {
			g.always = g.reached(r)
		}
	}
	return g
}

// spread marks each declaration that starts a goroutine or refers to one that does, until
// nothing changes.
func (g *declGraph) spread(decls map[string][]declInfo) {
	keys := make([]string, 0, len(decls))
	for k := range decls {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same reason on every run
	for changed := true; changed; {
		changed = false
		for _, k := range keys {
			if g.starts[k] != "" {
				continue
			}
			for _, d := range decls[k] {
				if w := g.reached(d); w != "" {
					g.starts[k] = w
					changed = true
					break
				}
			}
		}
	}
}

// reached says where a declaration, or code referring to this package's names as d does,
// starts a goroutine of this package, or "".
func (g *declGraph) reached(d declInfo) string {
	if d.start != "" {
		return d.start
	}
	refs := make([]string, 0, len(d.refs))
	for r := range d.refs {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	for _, r := range refs {
		if m, ok := strings.CutPrefix(r, "."); ok {
			for _, key := range g.methods[m] {
				if w := g.starts[key]; w != "" {
					return w
				}
			}
		} else if typ, ok := strings.CutPrefix(r, "{}"); ok {
			if w := g.typeStarts(typ); w != "" {
				return w
			}
		} else if w := g.starts[r]; w != "" {
			return w
		}
	}
	return ""
}

// importerReaches says where a package's files (its tests included) call into dep's
// goroutines ("file:line calls dep.Name (where it starts)"), or "".
func importerReaches(fs []goFile, depPath string, g *declGraph) string {
	anyStart := g.any()
	if anyStart == "" {
		return ""
	}
	for _, f := range fs {
		local := ""
		for _, im := range f.ast.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == depPath {
				local = path.Base(p)
				if im.Name != nil {
					local = im.Name.Name
				}
				at := fmt.Sprintf("%s:%d", f.rel, f.fset.Position(im.Pos()).Line)
				switch {
				case g.always != "":
					return fmt.Sprintf("%s imports %s (%s)", at, depPath, g.always)
				case local == ".":
					return fmt.Sprintf("%s dot-imports %s (%s)", at, depPath, anyStart)
				}
			}
		}
		if w := fileReaches(f, local, g); w != "" {
			return w
		}
	}
	return ""
}

// fileReaches says where file f refers to a declaration of the package it imports as
// local (or calls a method of the same name) that starts a goroutine, or "".
func fileReaches(f goFile, local string, g *declGraph) string {
	imports := importNames(f)
	where := ""
	ast.Inspect(f.ast, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if where != "" || !ok {
			return where == ""
		}
		name := sel.Sel.Name
		var w string
		id, isIdent := sel.X.(*ast.Ident)
		isPkg := isIdent && imports[id.Name] != ""
		switch {
		case isIdent && id.Name == local && local != "":
			// A declaration, or a type (local.T{}, new(local.T)): a value of it may have
			// its methods called through an interface.
			if w = g.starts[name]; w == "" {
				w = g.typeStarts(name)
			}
		case isIdent && isPkg: // another package's name
		default:
			for _, key := range g.methods[name] {
				if w = g.starts[key]; w != "" {
					break
				}
			}
		}
		if w != "" {
			where = fmt.Sprintf("%s:%d calls %s (%s)", f.rel, f.fset.Position(sel.Pos()).Line, name, w)
		}
		return true
	})
	return where
}

// typeStarts says where a method of type typ starts a goroutine, or "".
func (g *declGraph) typeStarts(typ string) string {
	for _, keys := range g.methods {
		for _, key := range keys {
			if strings.HasPrefix(key, typ+".") && g.starts[key] != "" {
				return g.starts[key]
			}
		}
	}
	return ""
}
