package migrate

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// What the command parsed and completed, through runF: the selector parsed, nothing read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{"payments"}},
		"--team", "payments", "--environment", "prod", "-l", "!butler.butlerlabs.dev/environment", "--concurrency", "2")
	if r.Code != 0 || o == nil || o.selector == nil || o.Concurrency != 2 || !o.Offline || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "--team", "payments", "--environment", "prod", "--all", "ledger-legacy"); r.Code != 2 || o != nil {
		t.Errorf("--all with names: exit %d: %v", r.Code, r.Err)
	}
}

// run labels the cluster without an environment and reports it; a dry run changes
// nothing, and a viewer may not migrate (exit 4).
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	args := []string{"--team", "payments", "--environment", "prod", "ledger-legacy"}
	legacy := func() *v1alpha1.TenantCluster {
		for i := range s.Clusters {
			if s.Clusters[i].Name == "ledger-legacy" {
				return &s.Clusters[i]
			}
		}
		t.Fatal("no ledger-legacy")
		return nil
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, append(args, "--dry-run")...)
	if r.Code != 0 || legacy().Labels[v1alpha1.LabelEnvironment] != "" {
		t.Errorf("dry run: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, append(args, "--yes")...)
	if r.Code != 0 || legacy().Labels[v1alpha1.LabelEnvironment] != "prod" ||
		!strings.Contains(r.Stdout, "tenantcluster.butler.butlerlabs.dev/ledger-legacy migrated: (unlabeled) -> prod") {
		t.Errorf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	viewer := storetest.Payments(t, "dave@example.com")
	if r := cmdtest.Run(t, viewer, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, append(args, "--yes")...); r.Code != 4 {
		t.Errorf("viewer: exit %d: %v", r.Code, r.Err)
	}
}
