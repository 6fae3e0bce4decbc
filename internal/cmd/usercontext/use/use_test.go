package use

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: --config is where it writes.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{Config: "c.yaml"}, "payments", "--environment", "prod")
	if r.Code != 0 || o == nil || o.Team != "payments" || o.Environment != "prod" || o.Config != "c.yaml" || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// run saves team and environment, keeping the file's other keys; a team or environment
// that does not exist is not saved (exit 3).
func TestRun(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("as: bob@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := storetest.Payments(t, "bob@example.com")
	opts := factory.GlobalOptions{Config: config}
	for _, args := range [][]string{{"nope"}, {"payments", "--environment", "staging"}} {
		if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), opts, "", false, args...); r.Code != 3 {
			t.Errorf("%v: exit %d: %v", args, r.Code, r.Err)
		}
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), opts, "", false, "payments", "--environment", "prod")
	if r.Code != 0 || r.Stdout != "default context payments/prod saved in "+config+"\n" {
		t.Fatalf("exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	b, err := os.ReadFile(config)
	if err != nil || string(b) != "as: bob@example.com\nteam: payments\nenvironment: prod\n" {
		t.Errorf("config file %q, %v", b, err)
	}
}
