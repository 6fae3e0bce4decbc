package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The script's own additions to the guide's commands: where the repository is, and which
// identity's kubeconfig (the guide uses the current context).
var (
	scriptKubeconfig = regexp.MustCompile(` --kubeconfig \$KUBECONFIG_[A-Z]+`)
	scriptCode       = regexp.MustCompile(`^code (\d+) `)
)

// TestQuickstartMatchesScript holds docs/live-quickstart.md and its live script together:
// the commands of the guide's `sh live` blocks, in order, with the exit status each
// documents ("# exit N", else 0), are the commands the script runs, once the script's
// --kubeconfig and $REPO/ are left out. A step the guide shows and the suite does not
// run, or the other way round, fails here.
func TestQuickstartMatchesScript(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc := quickstartDoc(t, filepath.Join(root, "docs", "live-quickstart.md"))
	script := quickstartScript(t, filepath.Join(root, "testdata", "script", "live", "live_quickstart.txtar"))
	if len(doc) == 0 {
		t.Fatal("no ```sh live commands in docs/live-quickstart.md")
	}
	if strings.Join(doc, "\n") != strings.Join(script, "\n") {
		t.Errorf("docs/live-quickstart.md and live_quickstart.txtar part ways\n--- the guide\n%s\n--- the script\n%s",
			strings.Join(doc, "\n"), strings.Join(script, "\n"))
	}
}

// quickstartDoc is every line of the ```sh live blocks, joined over trailing backslashes,
// with its documented exit status: "N command".
func quickstartDoc(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case line == "```sh live":
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		case !in:
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		cmd, comment, _ := strings.Cut(line, "#")
		if cmd = strings.Join(strings.Fields(cmd), " "); cmd == "" {
			continue
		}
		code := 0
		if m := exitComment.FindStringSubmatch("#" + comment); m != nil {
			fmt.Sscan(m[1], &code)
		}
		out = append(out, fmt.Sprintf("%d %s", code, cmd))
	}
	return out
}

// quickstartScript is every command the script runs (exec, code N), without its
// --kubeconfig and $REPO/, with the exit status it expects: "N command".
func quickstartScript(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "-- ") {
			break // the archive's files
		}
		code := 0
		switch {
		case strings.HasPrefix(line, "exec "):
			line = strings.TrimPrefix(line, "exec ")
		case scriptCode.MatchString(line):
			fmt.Sscan(scriptCode.FindStringSubmatch(line)[1], &code)
			line = scriptCode.ReplaceAllString(line, "")
		default:
			continue
		}
		line = strings.ReplaceAll(scriptKubeconfig.ReplaceAllString(line, ""), "$REPO/", "")
		out = append(out, fmt.Sprintf("%d %s", code, strings.Join(strings.Fields(line), " ")))
	}
	return out
}
