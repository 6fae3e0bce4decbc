package network

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// TestDeleteRefusedWhileAllocated: the delete rule is checked first, so a pool with an
// Allocated IPAllocation is refused and nothing is deleted or asked.
func TestDeleteRefusedWhileAllocated(t *testing.T) {
	s := &storetest.Store{
		NetworkPools: []v1alpha1.NetworkPool{{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: "butler-system"}}},
		IPAllocations: []v1alpha1.IPAllocation{{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-payments", Labels: map[string]string{v1alpha1.LabelNetworkPool: "lab"}},
			Status:     v1alpha1.IPAllocationStatus{Phase: v1alpha1.IPAllocationPhaseAllocated},
		}},
	}
	err := runDelete(context.Background(), &DeleteOptions{Store: s, Namespace: "butler-system", Name: "lab"})
	if err == nil || !strings.Contains(err.Error(), `IPAllocation "web" in namespace "team-payments" is still in phase Allocated`) {
		t.Fatalf("err = %v, want the Allocated refusal", err)
	}
	if len(s.Deleted) != 0 || len(s.NetworkPools) != 1 {
		t.Fatalf("deleted %v, pools left %d: a refused delete must delete nothing", s.Deleted, len(s.NetworkPools))
	}
}

// TestGetMissingPool: a pool that does not exist is named as not found.
func TestGetMissingPool(t *testing.T) {
	err := runGet(context.Background(), &GetOptions{Store: &storetest.Store{}, Namespace: "butler-system", Name: "nope"})
	if err == nil || !strings.Contains(err.Error(), `NetworkPool "nope" not found`) {
		t.Fatalf("err = %v, want NetworkPool \"nope\" not found", err)
	}
}
