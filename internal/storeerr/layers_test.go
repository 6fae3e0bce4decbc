package storeerr_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/butlerdotdev/butler-toolkit/"

// The stores and lookups speak storeerr and apimachinery errors; the command layer turns
// them into advice and exit codes. So neither side may depend on the other: the stores and
// lookups import nothing of the command layer, and the command utilities nothing of the
// stores (cmdutil knows storeerr, which knows neither).
func TestLayers(t *testing.T) {
	cases := []struct {
		pkgs      string // a go list pattern
		forbidden []string
	}{
		{"./internal/store/...", []string{"internal/cmdutil", "internal/cmd/", "internal/cli"}},
		{"./internal/lookup/...", []string{"internal/cmdutil", "internal/cmd/", "internal/cli"}},
		{"./internal/storeerr/...", []string{"internal/cmdutil", "internal/cmd/", "internal/cli", "internal/store", "internal/lookup"}},
		{"./internal/cmdutil/...", []string{"internal/store", "internal/lookup"}},
	}
	for _, c := range cases {
		for _, imp := range imports(t, c.pkgs) {
			for _, f := range c.forbidden {
				rel := strings.TrimPrefix(imp.path, module)
				if rel != imp.path && (rel == strings.TrimSuffix(f, "/") || strings.HasPrefix(rel, strings.TrimSuffix(f, "/")+"/")) {
					t.Errorf("%s depends on %s (%s)", c.pkgs, imp.path, imp.via)
				}
			}
		}
	}
}

type dep struct{ path, via string }

// imports lists what the packages of pattern depend on: every package their code
// reaches (go list -deps), and what their tests import directly.
func imports(t *testing.T, pattern string) []dep {
	t.Helper()
	root := repoRoot(t)
	var out []dep
	for _, q := range []struct {
		args []string
		via  string
	}{
		{[]string{"list", "-deps", "-f", "{{.ImportPath}}", pattern}, "code, directly or not"},
		{[]string{"list", "-f", `{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}`, pattern}, "tests"},
	} {
		cmd := exec.Command("go", q.args...)
		cmd.Dir = root
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(q.args, " "), err)
		}
		for _, l := range strings.Fields(string(b)) {
			out = append(out, dep{path: l, via: q.via})
		}
	}
	if len(out) == 0 {
		t.Fatalf("go list %s listed nothing", pattern)
	}
	return out
}

func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}
