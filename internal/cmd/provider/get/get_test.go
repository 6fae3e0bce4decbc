package get

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: -n is taken from the options.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{Namespace: "butler-system"}, "harvester-prod", "--team", "payments")
	if o.Name != "harvester-prod" || o.Team != "payments" || o.Namespace != "butler-system" || o.Now == nil || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// run describes the provider with the clusters using it; the credentials Secret, not in
// the store, is said to be missing from the manifests; -o name names the object.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "harvester-prod")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	for _, want := range []string{"Provider:            harvester", "Scope:               platform", "(not in the manifests)", "Used by:             4 TenantCluster(s)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("no %q in\n%s", want, r.Stdout)
		}
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "name"}, "", false, "harvester-prod")
	if r.Code != 0 || r.Stdout != "providerconfig.butler.butlerlabs.dev/harvester-prod\n" {
		t.Errorf("-o name: exit %d, %q", r.Code, r.Stdout)
	}
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "nowhere"); r.Code != 3 {
		t.Errorf("missing: exit %d: %v", r.Code, r.Err)
	}
}
