package policy

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ClusterCreationPolicy resolution (docs/cluster-creation-policies.md): which rule applies
// to each option of a TenantCluster, and from which policy.

// PolicyTarget is what a cluster is resolved against: its team (spec.teamRef.name), its
// environment (the environment label) and its provider type (the ProviderConfig's
// spec.provider).
type PolicyTarget struct {
	Team        string
	Environment string
	Provider    string
}

// ResolvedRule is the rule that applies to one option type and where it comes from.
type ResolvedRule struct {
	Option string        // image, network, cluster or storageContainer
	Policy string        // the winning policy's name
	Tier   v1alpha1.Tier // its tier
	Rule   v1alpha1.OptionRule
}

// Enforced reports whether the server refuses values outside the rule (pin, allowList);
// default and recommended only shape the console's choices.
func (r ResolvedRule) Enforced() bool {
	return r.Rule.Mode == v1alpha1.ModePin || r.Rule.Mode == v1alpha1.ModeAllowList
}

// Preselect is the value the console pre-selects when the user picks none: the single
// value of a pin, the default of a default rule, or an allowList's default when it is
// among the values. Empty when the rule pre-selects nothing.
func (r ResolvedRule) Preselect() string {
	switch r.Rule.Mode {
	case v1alpha1.ModePin:
		if len(r.Rule.Values) == 1 {
			return r.Rule.Values[0]
		}
	case v1alpha1.ModeDefault:
		return r.Rule.Default
	case v1alpha1.ModeAllowList:
		if slices.Contains(r.Rule.Values, r.Rule.Default) {
			return r.Rule.Default
		}
	}
	return ""
}

// Allows reports whether an enforced rule admits a value; an empty value always passes
// (the cluster then uses the ProviderConfig's own setting).
func (r ResolvedRule) Allows(value string) bool {
	return value == "" || !r.Enforced() || slices.Contains(r.Rule.Values, value)
}

// PolicyTier is the tier at which a policy applies to a target, or TierNone when it does
// not: its provider filter must include the provider (empty means every provider), and a
// team or teamAndEnvironment scope must name the target's (non-empty) team and environment.
func PolicyTier(p *v1alpha1.ClusterCreationPolicy, t PolicyTarget) v1alpha1.Tier {
	if len(p.Spec.TargetProviders) > 0 && !slices.Contains(p.Spec.TargetProviders, v1alpha1.PolicyProviderType(t.Provider)) {
		return v1alpha1.TierNone
	}
	s := &p.Spec.Scope
	switch s.Tier() {
	case v1alpha1.TierTeamAndEnvironment:
		te := s.TeamAndEnvironment
		if t.Team != "" && t.Environment != "" && te.TeamRef.Name == t.Team && te.EnvironmentName == t.Environment {
			return v1alpha1.TierTeamAndEnvironment
		}
	case v1alpha1.TierTeam:
		if t.Team != "" && s.Team.TeamRef.Name == t.Team {
			return v1alpha1.TierTeam
		}
	case v1alpha1.TierPlatformWide:
		return v1alpha1.TierPlatformWide
	}
	return v1alpha1.TierNone
}

// ResolvePolicies returns, for each option type in the order image, network, cluster,
// storageContainer, the rule of the most specific tier that has one. Rules are never
// merged: a team allowList replaces a platform one. Within a tier (two policies there that
// curate the same option are refused by admission, but may predate it) the first policy by
// name wins, the order the API server lists them in. Options no policy curates are left out.
func ResolvePolicies(policies []v1alpha1.ClusterCreationPolicy, t PolicyTarget) []ResolvedRule {
	order := make([]int, 0, len(policies))
	tiers := make([]v1alpha1.Tier, len(policies))
	for i := range policies {
		if tiers[i] = PolicyTier(&policies[i], t); tiers[i] != v1alpha1.TierNone {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if tiers[i] != tiers[j] {
			return tiers[i] > tiers[j]
		}
		return policies[i].Name < policies[j].Name
	})
	var out []ResolvedRule
	for _, opt := range v1alpha1.OptionTypes {
		for _, i := range order {
			if rule, ok := policies[i].Spec.Options[opt]; ok {
				out = append(out, ResolvedRule{Option: opt, Policy: policies[i].Name, Tier: tiers[i], Rule: rule})
				break
			}
		}
	}
	return out
}

// OptionField is where an option lives on a TenantCluster of a provider type: the field
// path under spec.infrastructureOverride, or nil when the provider has no such field
// (only nutanix and harvester have any).
func OptionField(provider, option string) *field.Path {
	name := optionFieldName(provider, option)
	if name == "" {
		return nil
	}
	return field.NewPath("spec", "infrastructureOverride", provider, name)
}

func optionFieldName(provider, option string) string {
	switch provider {
	case v1alpha1.ProviderNutanix:
		switch option {
		case v1alpha1.OptionImage:
			return "imageUUID"
		case v1alpha1.OptionNetwork:
			return "subnetUUID"
		case v1alpha1.OptionCluster:
			return "clusterUUID"
		case v1alpha1.OptionStorageContainer:
			return "storageContainerUUID"
		}
	case v1alpha1.ProviderHarvester:
		switch option {
		case v1alpha1.OptionImage:
			return "imageName"
		case v1alpha1.OptionNetwork:
			return "networkName"
		}
	}
	return ""
}

// OptionValue is a cluster's value for an option under its provider's override ("" when
// unset or not applicable).
func OptionValue(c *v1alpha1.TenantCluster, provider, option string) string {
	o := c.Spec.InfrastructureOverride
	if o == nil {
		return ""
	}
	if p := optionPointer(o, provider, option, false); p != nil {
		return *p
	}
	return ""
}

// SetOptionValue writes an option's value into the cluster's override for its provider;
// false when the provider has no field for it.
func SetOptionValue(c *v1alpha1.TenantCluster, provider, option, value string) bool {
	if optionFieldName(provider, option) == "" {
		return false
	}
	if c.Spec.InfrastructureOverride == nil {
		c.Spec.InfrastructureOverride = &v1alpha1.InfrastructureOverride{}
	}
	*optionPointer(c.Spec.InfrastructureOverride, provider, option, true) = value
	return true
}

// optionPointer finds the field; with create it allocates the provider's block.
func optionPointer(o *v1alpha1.InfrastructureOverride, provider, option string, create bool) *string {
	switch provider {
	case v1alpha1.ProviderNutanix:
		if o.Nutanix == nil {
			if !create {
				return nil
			}
			o.Nutanix = &v1alpha1.NutanixOverride{}
		}
		n := o.Nutanix
		return map[string]*string{v1alpha1.OptionImage: &n.ImageUUID, v1alpha1.OptionNetwork: &n.SubnetUUID,
			v1alpha1.OptionCluster: &n.ClusterUUID, v1alpha1.OptionStorageContainer: &n.StorageContainerUUID}[option]
	case v1alpha1.ProviderHarvester:
		if o.Harvester == nil {
			if !create {
				return nil
			}
			o.Harvester = &v1alpha1.HarvesterOverride{}
		}
		h := o.Harvester
		return map[string]*string{v1alpha1.OptionImage: &h.ImageName, v1alpha1.OptionNetwork: &h.NetworkName}[option]
	}
	return nil
}
