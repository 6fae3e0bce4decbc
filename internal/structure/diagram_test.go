package structure

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// diagramLayers reads the layer diagram of CONTRIBUTING.md's Architecture section (its
// first code block), top layer first: a line that does not start with a space starts a
// layer, an indented one continues it; the left column, up to two spaces, lists packages
// ("x/*" is x and every package below it).
func diagramLayers(doc string) [][]string {
	start := strings.Index(doc, "## Architecture")
	if start < 0 {
		return nil
	}
	rest := doc[start:]
	open := strings.Index(rest, "```\n")
	if open < 0 {
		return nil
	}
	rest = rest[open+4:]
	block := rest[:strings.Index(rest, "```")]
	var layers [][]string
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		cont := strings.HasPrefix(line, " ")
		left := strings.TrimSpace(line)
		if i := strings.Index(left, "  "); i >= 0 {
			left = left[:i]
		}
		var pkgs []string
		for _, p := range strings.Split(left, ",") {
			if p = strings.TrimSpace(p); p != "" {
				pkgs = append(pkgs, p)
			}
		}
		if cont && len(layers) > 0 {
			layers[len(layers)-1] = append(layers[len(layers)-1], pkgs...)
		} else {
			layers = append(layers, pkgs)
		}
	}
	return layers
}

// layerOf is the layer (0 the top) of a package directory: that of the most specific
// pattern that matches it, -1 for none.
func layerOf(layers [][]string, dir string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l {
			base, all := strings.CutSuffix(p, "/*")
			if dir == base || (all && strings.HasPrefix(dir, base+"/")) {
				if len(p) > bestLen {
					best, bestLen = i, len(p)
				}
			}
		}
	}
	return best
}

// diagramProblems are the packages the diagram places nowhere and the imports that go up
// a layer, over the non-test files of the module (the tools modules under hack/ aside).
func diagramProblems(t *testing.T, layers [][]string, files []goFile) (unplaced, upward []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range files {
		dir := pathDir(f.rel)
		if f.test || strings.HasPrefix(f.rel, "hack/") || strings.Contains(f.rel, "testdata/") {
			continue
		}
		from := layerOf(layers, dir)
		if from < 0 {
			if !seen[dir] {
				unplaced = append(unplaced, dir)
			}
			seen[dir] = true
			continue
		}
		for _, imp := range f.ast.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatalf("%s: import %s: %v", f.rel, imp.Path.Value, err)
			}
			rel, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			if to := layerOf(layers, rel); to >= 0 && to < from {
				upward = append(upward, f.rel+" -> "+rel)
			}
		}
	}
	sort.Strings(unplaced)
	sort.Strings(upward)
	return unplaced, upward
}

// TestDiagramMatchesImports: CONTRIBUTING's layer diagram is the map of who may import
// whom; every package is on it, and no import goes up a layer.
func TestDiagramMatchesImports(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	layers := diagramLayers(string(doc))
	if len(layers) < 3 {
		t.Fatalf("CONTRIBUTING.md: no layer diagram read (%d layers)", len(layers))
	}
	unplaced, upward := diagramProblems(t, layers, goFiles(t, root))
	if len(unplaced) > 0 {
		t.Errorf("packages CONTRIBUTING.md's diagram places in no layer:\n  %s", strings.Join(unplaced, "\n  "))
	}
	if len(upward) > 0 {
		t.Errorf("imports that go up a layer of CONTRIBUTING.md's diagram:\n  %s", strings.Join(upward, "\n  "))
	}
}

func TestDiagramLayersRead(t *testing.T) {
	layers := diagramLayers("x\n## Architecture\n\ntext\n\n```\ncmd/*              mains\ninternal/a, internal/b/*  a and\n  internal/c        more\npkg/*              library\n```\n")
	want := "[[cmd/*] [internal/a internal/b/* internal/c] [pkg/*]]"
	if got := strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(fmtLayers(layers), "\n", " "), "  ", " ")), " "); got != want {
		t.Errorf("diagramLayers = %s, want %s", got, want)
	}
	if got := layerOf(layers, "internal/b/x/y"); got != 1 {
		t.Errorf("layerOf(internal/b/x/y) = %d, want 1", got)
	}
	if got := layerOf(layers, "internal/d"); got != -1 {
		t.Errorf("layerOf(internal/d) = %d, want -1", got)
	}
}

func fmtLayers(layers [][]string) string {
	var parts []string
	for _, l := range layers {
		parts = append(parts, "["+strings.Join(l, " ")+"]")
	}
	return "[" + strings.Join(parts, " ") + "]"
}
