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
	if len(errs) != 1 || errs[0].Error() != `spec.environments[2].name: Invalid value: "DEV": the same environment as "dev" (environment names compare case-insensitively)` {
		t.Fatalf("got %v", errs)
	}
	if errs := DuplicateEnvironments(&v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}}); len(errs) != 0 {
		t.Fatalf("distinct names refused: %v", errs)
	}
}

// A cluster labelled DEV counts against dev's caps: it is the same environment.
func TestEnvironmentCountsFoldCase(t *testing.T) {
	max := int32(1)
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{
		{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: &max}},
	}}}
	clusters := []v1alpha1.TenantCluster{{ObjectMeta: metav1.ObjectMeta{Name: "a",
		Labels:      map[string]string{v1alpha1.LabelEnvironment: "DEV"},
		Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: "carol@example.com"}}}}
	if n := EnvironmentCount(clusters, "dev", ""); n != 1 {
		t.Errorf("EnvironmentCount = %d, want 1", n)
	}
	if n := MemberCount(clusters, "dev", "carol@example.com", ""); n != 1 {
		t.Errorf("MemberCount = %d, want 1", n)
	}
	eu := EnvironmentUsageOf(team, "DEV", clusters)
	if eu.Clusters != 1 || eu.MaxClusters != 1 {
		t.Errorf("EnvironmentUsageOf(DEV) = %+v, want 1 cluster against dev's cap of 1", eu)
	}
}
