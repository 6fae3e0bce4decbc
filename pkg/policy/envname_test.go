package policy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestSameEnvironment(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"dev", "dev", true},
		{"dev", "DEV", true},
		{"Prod-1", "pROD-1", true},
		{"dev", "dev2", false},
		{"", "", true},
		{"k", "\u212a", false}, // the Kelvin sign folds to k in Unicode, not here
		{"dev", "de\u212a", false},
	} {
		if got := SameEnvironment(c.a, c.b); got != c.want {
			t.Errorf("SameEnvironment(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestDuplicateEnvironments(t *testing.T) {
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}, {Name: "DEV"}}}}
	errs := DuplicateEnvironments(team)
	if len(errs) != 1 || errs[0].Error() != `spec.environments[2].name: Invalid value: "DEV": differs from "dev" only in case: the server counts them as two environments, each with its own caps` {
		t.Fatalf("got %v", errs)
	}
	if errs := DuplicateEnvironments(&v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}}); len(errs) != 0 {
		t.Fatalf("distinct names refused: %v", errs)
	}
}

// A cluster labelled DEV does not count against dev's caps: the server's validateEnvironment
// (tenantcluster_webhook.go) counts siblings whose label equals the environment exactly.
func TestEnvironmentCountsAreExact(t *testing.T) {
	max := int32(1)
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{
		{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: &max}},
	}}}
	clusters := []v1alpha1.TenantCluster{{ObjectMeta: metav1.ObjectMeta{Name: "a",
		Labels:      map[string]string{v1alpha1.LabelEnvironment: "DEV"},
		Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: "carol@example.com"}}}}
	if n := EnvironmentCount(clusters, "dev", ""); n != 0 {
		t.Errorf("EnvironmentCount = %d, want 0", n)
	}
	if n := EnvironmentCount(clusters, "DEV", ""); n != 1 {
		t.Errorf("EnvironmentCount(DEV) = %d, want 1", n)
	}
	if n := MemberCount(clusters, "dev", "carol@example.com", ""); n != 0 {
		t.Errorf("MemberCount = %d, want 0", n)
	}
	eu := EnvironmentUsageOf(team, "DEV", clusters)
	if eu.Clusters != 1 || eu.MaxClusters != 0 {
		t.Errorf("EnvironmentUsageOf(DEV) = %+v, want 1 cluster and no cap (dev's cap is not DEV's)", eu)
	}
	d := AdmitCluster(ClusterRequest{Operation: Create, Username: "carol@example.com", Team: team, Siblings: clusters,
		Cluster: &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "payments",
			Labels: map[string]string{v1alpha1.LabelEnvironment: "dev"}},
			Spec: v1alpha1.TenantClusterSpec{TeamRef: &v1alpha1.LocalObjectReference{Name: "payments"}}}})
	if !d.Allowed() {
		t.Errorf("a dev create refused by a DEV cluster: %v", d.Err())
	}
}
