package completion

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// versions completes --kubernetes-version from the --team's default version and the exact
// versions of its allowedKubernetesVersions; nothing without a team.
func (c *completer) versions(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	team := flag(cmd, "team")
	if team == "" {
		return nil, NoFile
	}
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		t, err := s.GetTeam(ctx, team)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		if d, err := policy.ResolveDefaults(t, "", policy.Explicit{}); err == nil && d.KubernetesVersion != "" {
			out = append(out, cobra.CompletionWithDesc(d.KubernetesVersion, "team "+t.Name+" default"))
		}
		if lim := t.Spec.ResourceLimits; lim != nil {
			for _, v := range lim.AllowedKubernetesVersions {
				// A pattern ("1.31.x") is no version to type: only exact entries are offered.
				if n, err := policy.NormalizeVersion(v); err == nil {
					out = append(out, cobra.CompletionWithDesc(n, "allowed for team "+t.Name))
				}
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}
