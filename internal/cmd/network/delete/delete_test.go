package delete

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func lab(phase v1alpha1.IPAllocationPhase) *storetest.Store {
	return &storetest.Store{
		NetworkPools: []v1alpha1.NetworkPool{{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: "butler-system"}}},
		IPAllocations: []v1alpha1.IPAllocation{{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-payments", Labels: map[string]string{v1alpha1.LabelNetworkPool: "lab"}},
			Status:     v1alpha1.IPAllocationStatus{Phase: phase},
		}},
	}
}

// What the command parsed and completed, through runF: -n defaults to butler-system.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, lab(""), NewCmd, factory.GlobalOptions{}, "lab", "--yes")
	if r.Code != 0 || o == nil || o.Name != "lab" || !o.Yes || o.Namespace != v1alpha1.DefaultProviderNamespace || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// The delete rule is checked first, so a pool with an Allocated IPAllocation is refused
// (exit 4) and nothing is deleted or asked; a released one is deleted.
func TestRun(t *testing.T) {
	s := lab(v1alpha1.IPAllocationPhaseAllocated)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "lab")
	if r.Code != 4 || !strings.Contains(r.Msg(), `IPAllocation "web" in namespace "team-payments" is still in phase Allocated`) {
		t.Fatalf("exit %d: %v, want the Allocated refusal", r.Code, r.Err)
	}
	if len(s.Deleted) != 0 || len(s.NetworkPools) != 1 {
		t.Fatalf("deleted %v, pools left %d: a refused delete must delete nothing", s.Deleted, len(s.NetworkPools))
	}
	s = lab("Released")
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "lab", "--yes")
	if r.Code != 0 || len(s.NetworkPools) != 0 || !strings.HasPrefix(r.Stdout, "networkpool.butler.butlerlabs.dev/lab deleted") {
		t.Errorf("exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
}
