package clear

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command completed, through runF: nothing is written.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{Config: "c.yaml"})
	if r.Code != 0 || o == nil || o.Config != "c.yaml" || o.IO == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// run removes the team and environment keys, keeping the others.
func TestRun(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("as: bob@example.com\nteam: payments\nenvironment: prod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := cmdtest.Run(t, storetest.Payments(t, "bob@example.com"), cmdtest.Cmd(NewCmd), factory.GlobalOptions{Config: config}, "", false)
	if r.Code != 0 || r.Stdout != "default context cleared in "+config+"\n" {
		t.Fatalf("exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	if b, err := os.ReadFile(config); err != nil || string(b) != "as: bob@example.com\n" {
		t.Errorf("config file %q, %v", b, err)
	}
}
