package list

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// What the command parsed and completed, through runF: without -n, every namespace.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, &storetest.Store{}, NewCmd, factory.GlobalOptions{})
	if r.Code != 0 || o == nil || o.Namespace != "" || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// run counts each pool's Allocated IPAllocations only.
func TestRun(t *testing.T) {
	alloc := func(name string, phase v1alpha1.IPAllocationPhase) v1alpha1.IPAllocation {
		return v1alpha1.IPAllocation{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-payments", Labels: map[string]string{v1alpha1.LabelNetworkPool: "lab"}},
			Status: v1alpha1.IPAllocationStatus{Phase: phase}}
	}
	s := &storetest.Store{
		NetworkPools:  []v1alpha1.NetworkPool{{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: "butler-system"}, Spec: v1alpha1.NetworkPoolSpec{CIDR: "10.0.0.0/24"}}},
		IPAllocations: []v1alpha1.IPAllocation{alloc("a", v1alpha1.IPAllocationPhaseAllocated), alloc("b", "Released")},
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if r.Code != 0 || len(lines) != 2 || strings.Join(strings.Fields(lines[1]), " ") != "butler-system lab 10.0.0.0/24 - 1" {
		t.Errorf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
}
