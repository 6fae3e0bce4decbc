package delete

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: nothing is read or deleted.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	o := cmdtest.Completed(t, s, NewCmd, factory.GlobalOptions{Namespace: "butler-system"}, "harvester-prod", "--yes", "--delete-credentials")
	if o.Name != "harvester-prod" || !o.Yes || !o.DeleteCredentials || o.Namespace != "butler-system" || o.IO == nil || o.Printer == nil || len(s.Deleted) != 0 {
		t.Errorf("parsed and completed %+v", o)
	}
}

// run refuses a provider clusters use (exit 4, each named), asks for --yes without a
// terminal, and deletes an unused one with its Secret when asked.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "harvester-prod", "--yes")
	if r.Code != 4 || len(s.Deleted) != 0 || !strings.Contains(r.Stderr, "4 TenantCluster(s) use ProviderConfig butler-system/harvester-prod: ") {
		t.Errorf("in use: exit %d: %v, stderr %q", r.Code, r.Err, r.Stderr)
	}
	s.Clusters = nil
	s.Secrets = map[string]map[string][]byte{"butler-system/harvester-credentials": {"kubeconfig": []byte("x")}}
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "harvester-prod"); r.Code != 2 || len(s.Deleted) != 0 {
		t.Errorf("no terminal, no --yes: exit %d: %v", r.Code, r.Err)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "harvester-prod", "--yes", "--delete-credentials")
	if r.Code != 0 || len(s.Deleted) != 2 || !strings.Contains(r.Stdout, "providerconfig.butler.butlerlabs.dev/harvester-prod deleted") ||
		!strings.Contains(r.Stdout, "secret/harvester-credentials deleted") {
		t.Errorf("exit %d: %v; deleted %v\n%s", r.Code, r.Err, s.Deleted, r.Stdout)
	}
}
