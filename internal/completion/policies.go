package completion

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// ClusterCreationPolicies: their names, and the values they allow for cluster create's
// option flags (docs/cluster-creation-policies.md).

// optionFlags are cluster create's flags for the options policies curate.
var optionFlags = map[string]string{
	"image":             v1alpha1.OptionImage,
	"network":           v1alpha1.OptionNetwork,
	"nutanix-cluster":   v1alpha1.OptionCluster,
	"storage-container": v1alpha1.OptionStorageContainer,
}

// policies are the ClusterCreationPolicies' names, with their scope.
func (c *completer) policies(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		list, err := s.ListClusterCreationPolicies(ctx)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for i := range list {
			out = append(out, cobra.CompletionWithDesc(list[i].Name, scopeDesc(list[i].Spec.Scope)))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

func scopeDesc(s v1alpha1.PolicyScope) string {
	switch {
	case s.Team != nil:
		return "team " + s.Team.TeamRef.Name
	case s.TeamAndEnvironment != nil:
		return "team " + s.TeamAndEnvironment.TeamRef.Name + ", environment " + s.TeamAndEnvironment.EnvironmentName
	}
	return "platform-wide"
}

// optionValues completes an option flag of cluster create with what the rule that applies
// to the cluster being typed offers: resolved for --team, --environment and the provider
// create would pick (--provider, the team's, or the only visible one), as create resolves
// it. A pin offers its value, an allowList its values, a default its default, a
// recommendation its values; each says which policy and tier it comes from. Nothing when
// no rule applies or the provider has no field for the option.
func (c *completer) optionValues(option string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
			t, ok := target(ctx, s, cmd)
			if !ok || (t.Provider != "" && policy.OptionField(t.Provider, option) == nil) {
				return nil
			}
			list, err := s.ListClusterCreationPolicies(ctx)
			if err != nil {
				return nil
			}
			for _, r := range policy.ResolvePolicies(list, t) {
				if r.Option == option {
					return ruleValues(r)
				}
			}
			return nil
		})
		return names(out, toComplete, nil), NoFile
	}
}

// target is the cluster being typed, as resolution sees it.
func target(ctx context.Context, s store.Store, cmd *cobra.Command) (policy.PolicyTarget, bool) {
	t := policy.PolicyTarget{Team: flag(cmd, "team"), Environment: flag(cmd, "environment")}
	if t.Team == "" {
		return t, false
	}
	team, err := s.GetTeam(ctx, t.Team)
	if err != nil {
		return t, false
	}
	if _, pc, err := lookup.Provider(ctx, s, team, flag(cmd, "provider")); err == nil && pc != nil {
		t.Provider = pc.Spec.Provider
	}
	return t, true
}

func ruleValues(r policy.ResolvedRule) []cobra.Completion {
	from := "policy " + r.Policy + " (" + r.Tier.String() + ")"
	var out []cobra.Completion
	switch r.Rule.Mode {
	case v1alpha1.ModeDefault:
		if r.Rule.Default != "" {
			out = append(out, cobra.CompletionWithDesc(r.Rule.Default, "default of "+from))
		}
	default:
		desc := r.Rule.Mode + " of " + from
		if r.Rule.Mode == v1alpha1.ModeRecommended && r.Rule.RecommendedReason != "" {
			desc += ": " + r.Rule.RecommendedReason
		}
		for _, v := range r.Rule.Values {
			out = append(out, cobra.CompletionWithDesc(v, strings.TrimSpace(desc)))
		}
	}
	return out
}
