package fastyaml_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// repoRoot is the repository, four levels up from this package.
const repoRoot = "../../../.."

// documents splits text at its "---" lines, as the loader does.
func documents(text string) []string {
	var docs []string
	start := 0
	for pos := 0; pos < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		l := strings.TrimRight(text[pos:end], "\n")
		if pos > 0 && (l == "---" || strings.HasPrefix(l, "--- ")) {
			docs = append(docs, text[start:pos])
			start = pos
		}
		pos = end
	}
	return append(docs, text[start:])
}

// corpus gathers the YAML the repository holds: its YAML files, the files of its txtar
// archives (scripts and render cases), the string literals of its Go files that look like
// YAML (test cases and fuzz seeds), and a generated tree of the loader's benchmark.
func corpus(t *testing.T) map[string]string {
	texts := map[string]string{}
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".json":
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts[p] = string(b)
		case ".txtar":
			a, err := txtar.ParseFile(p)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				texts[p+":"+f.Name] = string(f.Data)
			}
		case ".go":
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, ":") {
						texts[fset.Position(lit.Pos()).String()] = s
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := manifesttest.Generate(t.TempDir(), 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(tree.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		texts[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// TestCorpus compares the fast path with yaml.v3 on every document of the corpus: where
// it accepts one, its tree must be yaml.v3's. It logs, by source, how many of the
// documents yaml.v3 reads as a collection the fast path accepts.
func TestCorpus(t *testing.T) {
	type count struct{ accepted, declined int }
	counts := map[string]*count{}
	total := 0
	for name, text := range corpus(t) {
		source := "Go string literals"
		switch {
		case strings.Contains(name, ".txtar:"):
			source = "txtar archives"
		case strings.HasPrefix(name, os.TempDir()):
			source = "generated tree"
		case strings.HasSuffix(name, ".yaml"), strings.HasSuffix(name, ".yml"), strings.HasSuffix(name, ".json"):
			source = "YAML and JSON files"
		}
		for i, doc := range documents(text) {
			want, wantOK := reference(doc)
			got, ok := parse(doc)
			if ok && !wantOK {
				t.Errorf("%s, document %d: accepted, yaml.v3 refuses it:\n%s", name, i, doc)
				continue
			}
			if !wantOK || len(want.Content) == 0 || want.Content[0].Kind == yaml.ScalarNode {
				continue
			}
			c := counts[source]
			if c == nil {
				c = &count{}
				counts[source] = c
			}
			if !ok {
				c.declined++
				continue
			}
			c.accepted++
			total++
			if d := diff(got, want, ""); d != "" {
				t.Errorf("%s, document %d: %s\n%s", name, i, d, doc)
			}
		}
	}
	for source, c := range counts {
		t.Logf("%s: %d documents accepted, %d declined", source, c.accepted, c.declined)
	}
	if total < 1000 {
		t.Errorf("only %d documents accepted", total)
	}
}
