package list

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{Output: "wide"}, "--team", "payments")
	if o.Team != "payments" || o.Now == nil || o.Store == nil || o.Printer == nil || o.IO == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// --team and -n together are a usage error before anything is read.
func TestValidateTeamOrNamespace(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{Namespace: "butler-system"}, "--team", "payments")
	if r.Code != 2 || o != nil || !strings.Contains(r.Msg(), "pass --team or -n, not both") {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

// run lists the provider with the count of clusters using it; a namespace without any
// says so.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if r.Code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "butler-system   harvester-prod   harvester   platform") || !strings.Contains(lines[1], " 4 ") {
		t.Errorf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Namespace: "payments"}, "", false)
	if r.Code != 0 || !strings.Contains(r.Stderr, "No ProviderConfigs found in namespace payments.") {
		t.Errorf("exit %d: %v, stderr %q", r.Code, r.Err, r.Stderr)
	}
}
