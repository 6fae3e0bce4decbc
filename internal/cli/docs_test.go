package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// An example is one command of a fenced sh block in the docs, with the block's lines
// before it (variables, exports) and the exit status its trailing comment documents.
type example struct {
	file    string
	line    int
	prelude []string
	command string
	want    int
}

// exitComment is the documented exit status: a trailing "# exit N" on the command.
var exitComment = regexp.MustCompile(`#\s*exit (\d+)\b`)

// docExamples extracts the examples of the ```sh blocks of a markdown file. The block's
// info string says how it runs: "sh" offline (on --manifests or BUTLER_MANIFESTS, run by
// TestDocExamples), "sh live" against a cluster and "sh norun" (installs, shell set-up):
// those are counted and skipped, never silently.
func docExamples(t *testing.T, path string) (run []example, live, norun int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok || !(info == "sh" || strings.HasPrefix(info, "sh ")) {
			continue
		}
		start := i + 1
		var block []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			block = append(block, lines[i])
		}
		cmds := commands(path, start, block)
		switch strings.TrimSpace(strings.TrimPrefix(info, "sh")) {
		case "live":
			live += len(cmds)
			continue
		case "norun":
			norun += len(cmds)
			continue
		case "":
		default:
			t.Fatalf("%s:%d: unknown block kind %q: want sh, sh live or sh norun", path, start, info)
		}
		run = append(run, cmds...)
	}
	return run, live, norun
}

// commands splits a block into examples: lines joined over trailing backslashes; lines
// that run butlerctl or butleradm are examples, the others their preludes.
func commands(path string, start int, block []string) []example {
	var out []example
	var prelude []string
	for j := 0; j < len(block); j++ {
		line, n := block[j], j
		for strings.HasSuffix(line, "\\") && j+1 < len(block) {
			j++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(block[j])
		}
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "butlerctl ") && !strings.HasPrefix(trimmed, "butleradm ") {
			prelude = append(prelude, line)
			continue
		}
		ex := example{file: path, line: start + n + 1, prelude: append([]string(nil), prelude...), command: line}
		if _, comment, ok := strings.Cut(line, "#"); ok {
			if m := exitComment.FindStringSubmatch("#" + comment); m != nil {
				fmt.Sscan(m[1], &ex.want)
			}
		}
		out = append(out, ex)
	}
	return out
}

// TestDocExamples runs every offline example of README.md and docs/*.md as written, with
// sh, in a directory holding a copy of examples/payments, in order (a --write example's
// file is there for the next), and checks its documented exit status.
func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	dir := t.TempDir()
	var scripts []string
	total, live, norun := 0, 0, 0
	for _, doc := range docs {
		run, l, n := docExamples(t, doc)
		live, norun, total = live+l, norun+n, total+len(run)
		if len(run) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, doc)
		var script strings.Builder
		fmt.Fprintf(&script, "# The offline examples of %s, in order.\n", rel)
		var files strings.Builder
		for i, ex := range run {
			body := strings.Join(append(ex.prelude, ex.command), "\n")
			if !strings.Contains(body, "--manifests") && !strings.Contains(body, "BUTLER_MANIFESTS") {
				t.Errorf("%s:%d: %q needs a cluster: run it on --manifests, or mark its block ```sh live", rel, ex.line, strings.TrimSpace(ex.command))
			}
			fmt.Fprintf(&script, "\n# %s:%d\ncode %d sh ex%d.sh\n", rel, ex.line, ex.want, i)
			fmt.Fprintf(&files, "-- ex%d.sh --\n%s\n", i, body)
		}
		name := filepath.Join(dir, strings.NewReplacer("/", "_", ".md", "").Replace(rel)+".txtar")
		if err := os.WriteFile(name, []byte(script.String()+"\n"+files.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, name)
	}
	t.Logf("%d offline examples run; skipped: %d that need a live cluster (```sh live), %d that install or set up a shell (```sh norun); counts are commands", total, live, norun)
	if total == 0 {
		t.Fatal("no offline examples found in the docs")
	}
	testscript.Run(t, testscript.Params{
		Files:               scripts,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"code": cmdCode},
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("NO_COLOR", "1")
			if err := copyDir(filepath.Join(root, "examples", "flux"), filepath.Join(env.WorkDir, "examples", "flux")); err != nil {
				return err
			}
			return copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(env.WorkDir, "examples", "payments"))
		},
	})
}
