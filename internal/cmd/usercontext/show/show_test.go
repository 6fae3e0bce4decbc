package show

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command completed, through runF: the config path and the environment reader.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{Config: "c.yaml"})
	if r.Code != 0 || o == nil || o.Config != "c.yaml" || o.Getenv == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

func runOver(t *testing.T, config, format string, env map[string]string) string {
	t.Helper()
	deps, out, _ := cmdtest.Deps[factory.NoStore](nil, Spec, format)
	o := &Options{Deps: deps, Config: config, Getenv: func(k string) string { return env[k] }}
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// run: the file's team and environment with their source; BUTLER_TEAM wins over the file;
// -o name prints nothing without a default.
func TestRun(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if got := runOver(t, config, output.Name, nil); got != "" {
		t.Errorf("no default, -o name: %q", got)
	}
	if err := os.WriteFile(config, []byte("team: payments\nenvironment: prod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := runOver(t, config, output.Table, nil); !strings.HasPrefix(got, "Team:        payments (config file "+config+")\n") {
		t.Errorf("table: %q", got)
	}
	if got := runOver(t, config, output.Name, map[string]string{"BUTLER_TEAM": "elsewhere"}); got != "elsewhere/prod\n" {
		t.Errorf("BUTLER_TEAM: %q", got)
	}
}
