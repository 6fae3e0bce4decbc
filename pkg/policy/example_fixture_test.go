package policy_test

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Helpers carry an "ex" prefix so they cannot clash with other test files of the package.

func exI32(v int32) *int32 { return &v }

func exQty(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

// exPayments is the worked example of Butler's Environments document (examples/payments),
// with the e-mail addresses the saved document had redacted restored (alice, bob, carol).
func exPayments() *v1alpha1.Team {
	return &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: "payments"},
		Spec: v1alpha1.TeamSpec{
			Access: v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{
				{Name: "alice@example.com", Role: v1alpha1.RoleAdmin},
				{Name: "bob@example.com", Role: v1alpha1.RoleOperator},
				{Name: "carol@example.com", Role: v1alpha1.RoleOperator},
			}},
			ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: exI32(20)},
			ClusterDefaults: &v1alpha1.ClusterDefaults{
				KubernetesVersion: "v1.31.0",
				WorkerCount:       exI32(2),
				WorkerCPU:         exI32(2),
				WorkerMemoryGi:    exI32(4),
			},
			Environments: []v1alpha1.EnvironmentSpec{
				{
					Name:            "dev",
					Description:     "Developer sandboxes and integration testing",
					Limits:          &v1alpha1.EnvironmentLimits{MaxClustersPerMember: exI32(2)},
					ClusterDefaults: &v1alpha1.ClusterDefaults{WorkerMemoryGi: exI32(2)},
				},
				{
					Name:        "prod",
					Description: "Customer-facing payments processing",
					Limits:      &v1alpha1.EnvironmentLimits{MaxClusters: exI32(6), MaxClustersPerMember: exI32(1)},
					Access: &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{
						{Name: "bob@example.com", Role: v1alpha1.RoleAdmin},
					}},
					ClusterDefaults: &v1alpha1.ClusterDefaults{WorkerCount: exI32(3), WorkerCPU: exI32(4), WorkerMemoryGi: exI32(8)},
				},
			},
		},
	}
}
