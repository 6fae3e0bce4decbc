package policy_test

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// TestPlanMigrationPolicies: the target environment's policies apply to a migration; with
// ForcePolicy a cluster only they refuse is moved anyway (for the server to answer), one
// refused by another rule is still skipped.
func TestPlanMigrationPolicies(t *testing.T) {
	prodImages := ccp("prod-images", paymentsProd, nil, map[string]v1alpha1.OptionRule{"image": allow("ubuntu-24")})
	clusters := mgExample()
	policy.SetOptionValue(&clusters[3], "harvester", "image", "rocky-9") // ledger-legacy
	req := mgRequest("prod", clusters, policy.MigrationSelection{Names: []string{"ledger-legacy"}})
	req.Policies = []v1alpha1.ClusterCreationPolicy{prodImages}
	p := policy.PlanMigration(req)
	want := `spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "prod-images" allow-lists image to [ubuntu-24]; got "rocky-9"`
	if len(p.Moves) != 0 || len(p.Skipped) != 1 || p.Skipped[0].Reason != policy.SkipRefused || p.Skipped[0].Message != want {
		t.Fatalf("plan = %+v", p)
	}
	req.ForcePolicy = true
	if p = policy.PlanMigration(req); len(p.Moves) != 1 {
		t.Fatalf("forced: plan = %+v", p)
	}
	// another rule refusing too: still skipped
	team := exPayments()
	team.Spec.ResourceLimits.MaxNodesPerCluster = exI32(1)
	req.Team = team
	if p = policy.PlanMigration(req); len(p.Moves) != 0 {
		t.Fatalf("forced past another rule: plan = %+v", p)
	}
	// into dev, where the policy does not apply
	req = mgRequest("dev", clusters, policy.MigrationSelection{Names: []string{"ledger-legacy"}})
	req.Policies = []v1alpha1.ClusterCreationPolicy{prodImages}
	if p = policy.PlanMigration(req); len(p.Moves) != 1 {
		t.Fatalf("into dev: plan = %+v", p)
	}
}
