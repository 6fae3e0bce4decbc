package structure

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// layoutNames are the folders the README's "Layout" table names: each row's first cell
// lists paths in backticks, and a short name after a full one ("`internal/lookup`,
// `controlplane`") is a folder beside it.
func layoutNames(readme string) map[string]bool {
	start := strings.Index(readme, "\n## Layout")
	if start < 0 {
		return nil
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	tick := regexp.MustCompile("`([^`]+)`")
	names := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line[1:], "|", 2)[0]
		parent := ""
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			p := strings.TrimSuffix(m[1], "/")
			names[p] = true // a top-level folder, or the short name of one beside parent
			if strings.Contains(p, "/") {
				parent = p[:strings.LastIndex(p, "/")+1]
			} else if parent != "" {
				p = parent + p
			}
			names[p] = true
		}
	}
	return names
}

// layoutFolders are the folders the table must name: the top-level ones, and those one
// level below pkg/ and internal/.
func layoutFolders(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	top, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		switch e.Name() {
		case "pkg", "internal":
			sub, err := os.ReadDir(filepath.Join(root, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sub {
				if s.IsDir() {
					out = append(out, e.Name()+"/"+s.Name())
				}
			}
		default:
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// named reports whether the table names dir or a folder below it (`cmd/butlerctl` names
// cmd; `internal/cmd/<noun>/<verb>` names internal/cmd).
func named(names map[string]bool, dir string) bool {
	for n := range names {
		if n == dir || strings.HasPrefix(n, dir+"/") {
			return true
		}
	}
	return false
}

// TestLayoutNamesEveryFolder: the README's layout table is the map a newcomer reads, so a
// folder it does not name is a folder nobody was told about.
func TestLayoutNamesEveryFolder(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := layoutNames(string(readme))
	var missing []string
	for _, dir := range layoutFolders(t, root) {
		if !named(names, dir) {
			missing = append(missing, dir)
		}
	}
	if len(missing) > 0 {
		t.Errorf("README.md's Layout table names no row for:\n  %s\nadd each, with what it holds", strings.Join(missing, "\n  "))
	}
}

func TestLayoutNamesReadsShortNames(t *testing.T) {
	got := layoutNames("x\n## Layout\n\n| path | what |\n| --- | --- |\n| `internal/lookup`, `controlplane` | a |\n| `docs/reference`, `completions` | b |\n\n## Next\n| `internal/later` | c |\n")
	for _, want := range []string{"internal/lookup", "internal/controlplane", "docs/reference", "docs/completions", "completions"} {
		if !got[want] {
			t.Errorf("layoutNames = %v, want %s", got, want)
		}
	}
	if got["internal/later"] {
		t.Errorf("layoutNames read past the section: %v", got)
	}
}
