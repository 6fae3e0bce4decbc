package policy_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestStandingOf(t *testing.T) {
	cl := func(name, creator, owner string) v1alpha1.TenantCluster {
		a := map[string]string{}
		if creator != "" {
			a[v1alpha1.AnnotationCreatorEmail] = creator
		}
		if owner != "" {
			a[v1alpha1.AnnotationOwner] = owner
		}
		return v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: a,
			Labels: map[string]string{v1alpha1.LabelEnvironment: "dev"}}}
	}
	two, three := int32(2), int32(3)
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev",
		Limits: &v1alpha1.EnvironmentLimits{MaxClusters: &three, MaxClustersPerMember: &two}}}}}
	tests := []struct {
		name     string
		clusters []v1alpha1.TenantCluster
		status   string
		problems int
	}{
		{"under", []v1alpha1.TenantCluster{cl("a", "c@x", "")}, policy.QuotaOK, 0},
		{"member at cap", []v1alpha1.TenantCluster{cl("a", "c@x", ""), cl("b", "C@X", "")}, policy.QuotaWarning, 0},
		{"member over, env over", []v1alpha1.TenantCluster{cl("a", "c@x", ""), cl("b", "c@x", ""), cl("c", "c@x", ""), cl("d", "d@x", "")}, policy.QuotaExceeded, 2},
		{"no creator", []v1alpha1.TenantCluster{cl("a", "", "")}, policy.QuotaWarning, 1},
		{"owner is not creator", []v1alpha1.TenantCluster{cl("a", "c@x", "other@x")}, policy.QuotaWarning, 1},
	}
	for _, tt := range tests {
		st := policy.StandingOf(policy.EnvironmentUsageOf(team, "dev", tt.clusters), tt.clusters)
		if st.Status != tt.status || len(st.Problems) != tt.problems {
			t.Errorf("%s: status %s with %d problems %q, want %s with %d", tt.name, st.Status, len(st.Problems), st.Problems, tt.status, tt.problems)
		}
	}
}
