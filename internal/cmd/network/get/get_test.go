package get

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: -n as given.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, &storetest.Store{}, NewCmd, factory.GlobalOptions{}, "lab", "-n", "team-payments")
	if r.Code != 0 || o == nil || o.Name != "lab" || o.Namespace != "team-payments" || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// A pool that does not exist is named as not found (exit 3).
func TestRunMissingPool(t *testing.T) {
	r := cmdtest.Run(t, &storetest.Store{}, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "nope")
	if r.Code != 3 || r.Msg() != `NetworkPool "nope" not found` {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
}
