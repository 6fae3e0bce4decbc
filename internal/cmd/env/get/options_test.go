package get

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: run is not called, nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{}, "prod", "--team", "payments")
	if !(o.Name == "prod" && o.Team == "payments") || o.IO == nil || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}
