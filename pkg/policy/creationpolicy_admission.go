package policy

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// RuleCreationPolicy is the rule id prefix of the ClusterCreationPolicy step of TenantCluster
// admission; the option type follows ("creation-policy-image", ...).
const RuleCreationPolicy = "creation-policy-"

// PolicyTargetOf is the target a TenantCluster is resolved against under a ProviderConfig.
func PolicyTargetOf(c *v1alpha1.TenantCluster, pc *v1alpha1.ProviderConfig) PolicyTarget {
	t := PolicyTarget{Team: c.TeamName(), Environment: c.Labels[v1alpha1.LabelEnvironment]}
	if pc != nil {
		t.Provider = pc.Spec.Provider
	}
	return t
}

// creationPolicies is the server's ClusterCreationPolicy step: on create and update (no
// exemption for values the cluster already had), each pin or allowList rule that resolves
// for the cluster refuses a non-empty value outside its values, one error per rule, in the
// order image, network, cluster, storageContainer (the server's order is random).
func (a *clusterAdmission) creationPolicies(pc *v1alpha1.ProviderConfig) {
	if len(a.req.Policies) == 0 {
		return
	}
	t := PolicyTargetOf(a.c, pc)
	for _, r := range ResolvePolicies(a.req.Policies, t) {
		path := OptionField(t.Provider, r.Option)
		if !r.Enforced() || path == nil {
			continue
		}
		value := OptionValue(a.c, t.Provider, r.Option)
		ck := Check{Rule: RuleCreationPolicy + r.Option, Field: path.String(), Policy: r.Policy,
			Limit: fmt.Sprintf("%v", r.Rule.Values), Requested: value, After: value}
		if r.Allows(value) {
			a.check(ck)
			continue
		}
		verb := "pins"
		if r.Rule.Mode == v1alpha1.ModeAllowList {
			verb = "allow-lists"
		}
		a.deny(ck, field.Forbidden(path, fmt.Sprintf("ClusterCreationPolicy %q %s %s to %v; got %q",
			r.Policy, verb, r.Option, r.Rule.Values, value)))
	}
}

// providerRefUnset records that the server stops after the environment checks for a
// cluster without providerConfigRef.
func (a *clusterAdmission) providerRefUnset() {
	a.check(Check{Rule: RuleProviderRefUnset, Field: fieldPCRef, Warning: "spec.providerConfigRef is not set: " +
		"the server skips the ProviderConfig, ClusterCreationPolicy and team-limit checks for this cluster"})
}

// onlyPolicyViolations is true when every violation is a ClusterCreationPolicy's.
func onlyPolicyViolations(d Decision) bool {
	for _, v := range d.Violations {
		if !strings.HasPrefix(v.Rule, RuleCreationPolicy) {
			return false
		}
	}
	return true
}

// NeedsPolicies reports whether AdmitCluster can read Policies for this request: only when
// the cluster names a ProviderConfig that exists and sets a value for an option of its
// provider (an empty value always passes). When it is false the decision is the same with
// Policies nil, so the webhook skips listing them.
func (r ClusterRequest) NeedsPolicies() bool {
	c, pc := r.Cluster, r.ProviderConfig
	if c == nil || pc == nil || c.Spec.ProviderConfigRef == nil || c.Spec.InfrastructureOverride == nil {
		return false
	}
	if r.Operation != Create && r.Operation != "" && r.Operation != Update {
		return false
	}
	for _, opt := range v1alpha1.OptionTypes {
		if OptionValue(c, pc.Spec.Provider, opt) != "" {
			return true
		}
	}
	return false
}
