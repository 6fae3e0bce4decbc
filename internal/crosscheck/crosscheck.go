// Package crosscheck type-checks Go packages, and everything they import, from source for
// another system (GOOS/GOARCH): what `go build` for that system rejects as a type error
// (a syscall type or function only Linux has, a file built only on Linux that others
// need) fails here too, without compiling or linking anything. It is how `make cross`
// proves the binaries build for every system the release ships at a fraction of a build's
// cost; cgo is off, as it is when cross-compiling.
package crosscheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// maxSource bounds each source file read; the largest generated file of a dependency is a
// few megabytes.
const maxSource = 64 << 20

// maxList bounds go list's output: a few megabytes for a thousand packages.
const maxList = 256 << 20

// maxErrors is how many type errors are reported before the rest are only counted.
const maxErrors = 50

// pkg is what go list says of one package for the target system.
type pkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	ImportMap  map[string]string
	Module     *struct{ GoVersion string }
	Error      *struct{ Err string }
}

// Result is one system's check: how many packages were checked and the errors found
// (each naming its file, line and column), of which at most maxErrors are kept.
type Result struct {
	Packages int
	Errors   []string
	Dropped  int
}

// Check lists the packages matching patterns, and all they import, as go list sees them
// in dir for goos/goarch with cgo off, and type-checks each from source, dependencies
// first. An error is returned when the packages cannot be listed or read; type errors are
// in the Result.
func Check(ctx context.Context, dir, goos, goarch string, patterns ...string) (*Result, error) {
	pkgs, err := list(ctx, dir, goos, goarch, patterns)
	if err != nil {
		return nil, err
	}
	sizes := types.SizesFor("gc", goarch)
	if sizes == nil {
		return nil, fmt.Errorf("crosscheck: unknown GOARCH %q", goarch)
	}
	res := &Result{}
	report := func(msg string) {
		if len(res.Errors) < maxErrors {
			res.Errors = append(res.Errors, msg)
		} else {
			res.Dropped++
		}
	}
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	for _, p := range pkgs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.ImportPath == "unsafe" {
			continue
		}
		if p.Error != nil {
			report(fmt.Sprintf("%s: %s", p.ImportPath, p.Error.Err))
			continue
		}
		if len(p.CgoFiles) > 0 { // go list with cgo off lists none; a package that needs cgo
			report(fmt.Sprintf("%s: needs cgo, which cross builds do not have", p.ImportPath))
		}
		tp, err := checkOne(p, checked, sizes, report)
		if err != nil {
			return nil, err
		}
		checked[p.ImportPath] = tp
		res.Packages++
	}
	return res, nil
}

// list runs go list -deps: its packages come dependencies first.
func list(ctx context.Context, dir, goos, goarch string, patterns []string) ([]*pkg, error) {
	args := append([]string{"list", "-e", "-deps",
		"-json=ImportPath,Dir,Standard,GoFiles,CgoFiles,ImportMap,Module,Error"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("crosscheck: go list: %w", err)
	}
	out, readErr := fileio.ReadAll(stdout, maxList)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("crosscheck: go list for %s/%s: %w\n%s", goos, goarch, err, stderr.Bytes())
	}
	if readErr != nil {
		return nil, fmt.Errorf("crosscheck: go list for %s/%s: %w", goos, goarch, readErr)
	}
	var pkgs []*pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := &pkg{}
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("crosscheck: go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// checkOne parses and type-checks one package against the packages checked before it.
func checkOne(p *pkg, checked map[string]*types.Package, sizes types.Sizes, report func(string)) (*types.Package, error) {
	fset := token.NewFileSet()
	files := make([]*ast.File, 0, len(p.GoFiles))
	for _, name := range p.GoFiles {
		path := filepath.Join(p.Dir, name)
		src, err := fileio.ReadFile(path, maxSource)
		if err != nil {
			return nil, fmt.Errorf("crosscheck: %s: %w", p.ImportPath, err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			report(err.Error())
			continue
		}
		files = append(files, f)
	}
	conf := types.Config{
		Importer: importer{p, checked},
		Sizes:    sizes,
		Error:    func(err error) { report(err.Error()) },
	}
	// The language version the compiler would use (-lang): the module's go line, as cmd/go
	// passes it; the standard library is always the toolchain's own.
	if p.Module != nil && !p.Standard {
		if v := version.Lang("go" + p.Module.GoVersion); v != "" {
			conf.GoVersion = v
		}
	}
	tp, _ := conf.Check(p.ImportPath, fset, files, nil) // errors went to report
	return tp, nil
}

// importer resolves an import of one package: through its ImportMap (vendored standard
// library packages), to a package checked before it.
type importer struct {
	p       *pkg
	checked map[string]*types.Package
}

func (im importer) Import(path string) (*types.Package, error) {
	if mapped, ok := im.p.ImportMap[path]; ok {
		path = mapped
	}
	if tp, ok := im.checked[path]; ok {
		return tp, nil
	}
	return nil, fmt.Errorf("%s: import %q was not checked before it (go list reported no such dependency)", im.p.ImportPath, path)
}
