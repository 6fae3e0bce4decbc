package uninstall

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// What the command parsed and completed, through runF: nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "carol@example.com"), NewCmd, factory.GlobalOptions{}, "carol-sandbox-1", "cert-manager", "--team", "payments")
	if o.Cluster != "carol-sandbox-1" || o.Addon != "cert-manager" || o.Team != "payments" || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// run deletes the named addon's TenantAddon, matched case-insensitively; a viewer may
// not (exit 4), and an addon not installed is not found (exit 3).
func TestRun(t *testing.T) {
	with := func(as string) *storetest.Store {
		s := storetest.Payments(t, as)
		a := v1alpha1.TenantAddon{Spec: v1alpha1.TenantAddonSpec{ClusterRef: v1alpha1.LocalObjectReference{Name: "carol-sandbox-1"}, Addon: "cert-manager"}}
		a.Name, a.Namespace = "carol-sandbox-1-cert-manager", "payments"
		s.Addons = []v1alpha1.TenantAddon{a}
		return s
	}
	viewer := with("dave@example.com")
	if r := cmdtest.Run(t, viewer, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "cert-manager", "--team", "payments"); r.Code != 4 || len(viewer.Addons) != 1 {
		t.Errorf("viewer: exit %d: %v", r.Code, r.Err)
	}
	s := with("carol@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "Cert-Manager", "--team", "payments")
	if r.Code != 0 || len(s.Deleted) != 1 || s.Deleted[0] != "TenantAddon payments/carol-sandbox-1-cert-manager" {
		t.Errorf("exit %d: %v; deleted %v", r.Code, r.Err, s.Deleted)
	}
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "cert-manager", "--team", "payments"); r.Code != 3 {
		t.Errorf("again: exit %d: %v", r.Code, r.Err)
	}
}
