package parity_test

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// parityPolicies are the "policies" fixture: an image allow-list at the platform tier,
// a narrower one for payments, and a network pin for payments/prod.
func parityPolicies() []client.Object {
	return []client.Object{
		ccp("platform-images", v1alpha1.PolicyScope{PlatformWide: &v1alpha1.PlatformWideScope{}}, map[string]v1alpha1.OptionRule{
			"image": {Mode: v1alpha1.ModeAllowList, Values: []string{"ubuntu-22", "ubuntu-24"}}}),
		ccp("payments-images", teamScope("payments"), map[string]v1alpha1.OptionRule{
			"image": {Mode: v1alpha1.ModeAllowList, Values: []string{"ubuntu-24"}}}),
		ccp("payments-prod-network", envScope("payments", "prod"), map[string]v1alpha1.OptionRule{
			"network": {Mode: v1alpha1.ModePin, Values: []string{"default/vlan-200"}}}),
	}
}

func ccp(name string, scope v1alpha1.PolicyScope, opts map[string]v1alpha1.OptionRule) *v1alpha1.ClusterCreationPolicy {
	return &v1alpha1.ClusterCreationPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindClusterCreationPolicy},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.ClusterCreationPolicySpec{Scope: scope, Options: opts},
	}
}

func teamScope(team string) v1alpha1.PolicyScope {
	return v1alpha1.PolicyScope{Team: &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: team}}}
}

func envScope(team, env string) v1alpha1.PolicyScope {
	return v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{
		TeamRef: v1alpha1.LocalObjectReference{Name: team}, EnvironmentName: env}}
}

func withImage(c *v1alpha1.TenantCluster, image string) *v1alpha1.TenantCluster {
	policy.SetOptionValue(c, v1alpha1.ProviderHarvester, v1alpha1.OptionImage, image)
	return c
}

func withNetwork(c *v1alpha1.TenantCluster, network string) *v1alpha1.TenantCluster {
	policy.SetOptionValue(c, v1alpha1.ProviderHarvester, v1alpha1.OptionNetwork, network)
	return c
}

// ledger is a cluster of no team, in the payments namespace: only platform policies apply.
func ledger(name string) *v1alpha1.TenantCluster {
	c := cluster(name, "", "", 1, 2, "2Gi")
	c.Spec.TeamRef = nil
	delete(c.Labels, v1alpha1.LabelTeam)
	return c
}

var _ = testenv.Olivia
