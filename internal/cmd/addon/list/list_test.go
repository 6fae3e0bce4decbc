package list

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// What the command parsed and completed, through runF: nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "dave@example.com"), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments")
	if o.Cluster != "bob-checkout" || o.Team != "payments" || o.IO == nil || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// Without --team: a usage error before anything is read.
func TestValidateNeedsTeam(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "dave@example.com"), NewCmd, factory.GlobalOptions{}, "bob-checkout")
	if r.Code != 2 || o != nil || !strings.Contains(r.Msg(), "--team is required") {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

// run lists the cluster's TenantAddons only, a Helm chart by its chart, and says when a
// restriction would refuse one now.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "dave@example.com")
	s.Teams[0].Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{DeniedAddons: []string{"istio"}}
	addon := func(name, cluster, catalog string, helm *v1alpha1.TenantAddonHelm) v1alpha1.TenantAddon {
		a := v1alpha1.TenantAddon{Spec: v1alpha1.TenantAddonSpec{ClusterRef: v1alpha1.LocalObjectReference{Name: cluster}, Addon: catalog, Version: "1.0", Helm: helm}}
		a.Name, a.Namespace = name, "payments"
		return a
	}
	s.Addons = []v1alpha1.TenantAddon{
		addon("bob-checkout-istio", "bob-checkout", "istio", nil),
		addon("bob-checkout-podinfo", "bob-checkout", "", &v1alpha1.TenantAddonHelm{Chart: "podinfo", Repository: "https://example.com"}),
		addon("carol-sandbox-1-cert-manager", "carol-sandbox-1", "cert-manager", nil),
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "istio ") || !strings.Contains(lines[1], " no ") ||
		!strings.HasPrefix(lines[2], "podinfo (helm) ") || !strings.Contains(lines[2], " yes ") {
		t.Errorf("table:\n%s", r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "ledger-legacy", "--team", "payments")
	if r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, `Cluster "ledger-legacy" has no named addons.`) {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}
