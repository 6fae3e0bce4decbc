package policy_test

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ccpOracle is a literal transcription of the server's ClusterCreationPolicy step of the
// TenantCluster webhook (the resolver and enforcer of the May-June 2026 controller, as
// described in docs/cluster-creation-policies.md), in the server's own style: list (the API
// server lists by name), filter by provider, bucket by tier, first rule per option type
// from the most specific bucket, then check each pin and allowList against the provider's
// field. Test-only and naive on purpose. The server reports in map order; the tools in
// the order image, network, cluster, storageContainer, which this transcription fixes.
func ccpOracle(policies []v1alpha1.ClusterCreationPolicy, tc *v1alpha1.TenantCluster, pc *v1alpha1.ProviderConfig) field.ErrorList {
	var allErrs field.ErrorList
	if len(policies) == 0 {
		return allErrs
	}
	list := append([]v1alpha1.ClusterCreationPolicy(nil), policies...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	teamName := ""
	if tc.Spec.TeamRef != nil {
		teamName = tc.Spec.TeamRef.Name
	}
	envName := ""
	if tc.Labels != nil {
		envName = tc.Labels[v1alpha1.LabelEnvironment]
	}
	providerType := pc.Spec.Provider
	var teamEnvTier, teamTier, platformTier []v1alpha1.ClusterCreationPolicy
	for _, p := range list {
		if len(p.Spec.TargetProviders) > 0 {
			found := false
			for _, tp := range p.Spec.TargetProviders {
				if string(tp) == providerType {
					found = true
				}
			}
			if !found {
				continue
			}
		}
		switch {
		case p.Spec.Scope.TeamAndEnvironment != nil:
			te := p.Spec.Scope.TeamAndEnvironment
			if teamName != "" && envName != "" && te.TeamRef.Name == teamName && te.EnvironmentName == envName {
				teamEnvTier = append(teamEnvTier, p)
			}
		case p.Spec.Scope.Team != nil:
			if teamName != "" && p.Spec.Scope.Team.TeamRef.Name == teamName {
				teamTier = append(teamTier, p)
			}
		case p.Spec.Scope.PlatformWide != nil:
			platformTier = append(platformTier, p)
		}
	}
	type winner struct {
		policy string
		rule   v1alpha1.OptionRule
	}
	resolved := map[string]winner{}
	for _, tier := range [][]v1alpha1.ClusterCreationPolicy{teamEnvTier, teamTier, platformTier} {
		for _, p := range tier {
			for k, r := range p.Spec.Options {
				if _, done := resolved[k]; !done {
					resolved[k] = winner{p.Name, r}
				}
			}
		}
	}
	for _, option := range []string{"image", "network", "cluster", "storageContainer"} {
		w, ok := resolved[option]
		if !ok || (w.rule.Mode != "pin" && w.rule.Mode != "allowList") {
			continue
		}
		var fieldPath *field.Path
		value := ""
		o := tc.Spec.InfrastructureOverride
		switch providerType {
		case "nutanix":
			base := field.NewPath("spec", "infrastructureOverride", "nutanix")
			var n v1alpha1.NutanixOverride
			if o != nil && o.Nutanix != nil {
				n = *o.Nutanix
			}
			switch option {
			case "image":
				fieldPath, value = base.Child("imageUUID"), n.ImageUUID
			case "network":
				fieldPath, value = base.Child("subnetUUID"), n.SubnetUUID
			case "cluster":
				fieldPath, value = base.Child("clusterUUID"), n.ClusterUUID
			case "storageContainer":
				fieldPath, value = base.Child("storageContainerUUID"), n.StorageContainerUUID
			}
		case "harvester":
			base := field.NewPath("spec", "infrastructureOverride", "harvester")
			var h v1alpha1.HarvesterOverride
			if o != nil && o.Harvester != nil {
				h = *o.Harvester
			}
			switch option {
			case "image":
				fieldPath, value = base.Child("imageName"), h.ImageName
			case "network":
				fieldPath, value = base.Child("networkName"), h.NetworkName
			}
		}
		if fieldPath == nil || value == "" {
			continue
		}
		allowed := false
		for _, v := range w.rule.Values {
			if v == value {
				allowed = true
			}
		}
		if allowed {
			continue
		}
		var msg string
		if w.rule.Mode == "pin" {
			msg = fmt.Sprintf("ClusterCreationPolicy %q pins %s to %v; got %q", w.policy, option, w.rule.Values, value)
		} else {
			msg = fmt.Sprintf("ClusterCreationPolicy %q allow-lists %s to %v; got %q", w.policy, option, w.rule.Values, value)
		}
		allErrs = append(allErrs, field.Forbidden(fieldPath, msg))
	}
	return allErrs
}

// ccpAdmissionOracle is a literal transcription of the server's ClusterCreationPolicy
// webhook (validateScopeReferences, validateOptionRules, validateNoSameTierConflicts), with
// the option keys and the other policies visited in the tools' fixed order.
func ccpAdmissionOracle(p *v1alpha1.ClusterCreationPolicy, teams map[string]*v1alpha1.Team, others []v1alpha1.ClusterCreationPolicy) error {
	var allErrs field.ErrorList
	if s := p.Spec.Scope.Team; s != nil {
		if teams[s.TeamRef.Name] == nil {
			allErrs = append(allErrs, field.NotFound(field.NewPath("spec", "scope", "team", "teamRef", "name"), s.TeamRef.Name))
		}
	}
	if s := p.Spec.Scope.TeamAndEnvironment; s != nil {
		team := teams[s.TeamRef.Name]
		if team == nil {
			allErrs = append(allErrs, field.NotFound(field.NewPath("spec", "scope", "teamAndEnvironment", "teamRef", "name"), s.TeamRef.Name))
		} else {
			found := false
			for _, e := range team.Spec.Environments {
				if e.Name == s.EnvironmentName {
					found = true
				}
			}
			if !found {
				allErrs = append(allErrs, field.NotFound(field.NewPath("spec", "scope", "teamAndEnvironment", "environmentName"), s.EnvironmentName))
			}
		}
	}
	valid := map[string]bool{"image": true, "network": true, "cluster": true, "storageContainer": true}
	for _, key := range ccpOracleKeys(p.Spec.Options) {
		rule := p.Spec.Options[key]
		fp := field.NewPath("spec", "options").Key(key)
		if !valid[key] {
			allErrs = append(allErrs, field.NotSupported(fp, key, []string{"image", "network", "cluster", "storageContainer"}))
			continue
		}
		switch rule.Mode {
		case "pin":
			if len(rule.Values) != 1 {
				allErrs = append(allErrs, field.Invalid(fp.Child("values"), rule.Values, fmt.Sprintf("mode %q requires exactly one value, got %d", rule.Mode, len(rule.Values))))
			}
		case "allowList", "recommended":
			if len(rule.Values) == 0 {
				allErrs = append(allErrs, field.Required(fp.Child("values"), fmt.Sprintf("at least one value is required when mode is %q", rule.Mode)))
			}
		case "default":
			if rule.Default == "" {
				allErrs = append(allErrs, field.Required(fp.Child("default"), fmt.Sprintf("default value is required when mode is %q", rule.Mode)))
			}
		}
	}
	tierOf := func(s v1alpha1.PolicyScope) (string, string, string) {
		switch {
		case s.TeamAndEnvironment != nil:
			return "teamAndEnvironment", s.TeamAndEnvironment.TeamRef.Name, s.TeamAndEnvironment.EnvironmentName
		case s.Team != nil:
			return "team", s.Team.TeamRef.Name, ""
		case s.PlatformWide != nil:
			return "platformWide", "", ""
		}
		return "", "", ""
	}
	myTier, myTeam, myEnv := tierOf(p.Spec.Scope)
	sorted := append([]v1alpha1.ClusterCreationPolicy(nil), others...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, other := range sorted {
		if other.Name == p.Name {
			continue
		}
		t, tm, e := tierOf(other.Spec.Scope)
		if t != myTier || tm != myTeam || e != myEnv {
			continue
		}
		overlap := len(p.Spec.TargetProviders) == 0 || len(other.Spec.TargetProviders) == 0
		for _, a := range p.Spec.TargetProviders {
			for _, b := range other.Spec.TargetProviders {
				if a == b {
					overlap = true
				}
			}
		}
		if !overlap {
			continue
		}
		var shared []string
		for _, k := range ccpOracleKeys(p.Spec.Options) {
			if _, ok := other.Spec.Options[k]; ok {
				shared = append(shared, k)
			}
		}
		if len(shared) > 0 {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "options"),
				fmt.Sprintf("conflicts with ClusterCreationPolicy %q on option types %v at the same tier", other.Name, shared)))
		}
	}
	return allErrs.ToAggregate()
}

// ccpOracleKeys: known keys in the fixed order, then the others sorted.
func ccpOracleKeys(options map[string]v1alpha1.OptionRule) []string {
	var keys, other []string
	for _, k := range []string{"image", "network", "cluster", "storageContainer"} {
		if _, ok := options[k]; ok {
			keys = append(keys, k)
		}
	}
	for k := range options {
		switch k {
		case "image", "network", "cluster", "storageContainer":
		default:
			other = append(other, k)
		}
	}
	sort.Strings(other)
	return append(keys, other...)
}
