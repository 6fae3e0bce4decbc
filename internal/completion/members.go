package completion

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// memberArgs completes TEAM SUBJECT ROLE of `team member|group VERB`: the teams, then the
// team's members (or groups) for remove and set-role, or for `member add` the e-mails of
// the User objects that are not members yet, then the roles.
func (c *completer) memberArgs(groups, existing bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return c.teams(cmd, args, toComplete)
		case 1:
			out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
				return subjects(ctx, s, args[0], groups, existing)
			})
			return names(out, toComplete, nil), NoFile
		case 2:
			if existing && cmd.Name() == "remove" {
				return nil, NoFile
			}
			return filter(roles, toComplete), NoFile
		}
		return nil, NoFile
	}
}

func subjects(ctx context.Context, s store.Store, team string, groups, existing bool) []cobra.Completion {
	t, err := s.GetTeam(ctx, team)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	if groups {
		if existing {
			for _, g := range t.Spec.Access.Groups {
				out = append(out, cobra.CompletionWithDesc(g.Name, describe(string(g.Role), g.IdentityProvider)))
			}
		}
		return out
	}
	members := map[string]bool{}
	for _, u := range t.Spec.Access.Users {
		members[u.Name] = true
		if existing {
			out = append(out, cobra.CompletionWithDesc(u.Name, describe(string(u.Role))))
		}
	}
	if existing {
		return out
	}
	users, err := s.ListUsers(ctx)
	if err != nil {
		return nil
	}
	for _, u := range users {
		if u.Spec.Email != "" && !members[u.Spec.Email] {
			out = append(out, cobra.CompletionWithDesc(u.Spec.Email, describe(u.Spec.DisplayName)))
		}
	}
	return out
}

// addonArgs completes CLUSTER NAME of `addon uninstall`: the clusters, then the addons
// installed on the cluster; for `addon install` the second is NAME@ of the team's
// allowedAddons that are not denied.
func (c *completer) addonArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	switch {
	case len(args) == 0:
		return c.clusters(cmd, args, toComplete)
	case len(args) == 1 && cmd.Name() == "install":
		out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
			t, err := s.GetTeam(ctx, flag(cmd, "team"))
			if err != nil || t.Spec.ResourceLimits == nil {
				return nil
			}
			var out []cobra.Completion
			for _, a := range t.Spec.ResourceLimits.AllowedAddons {
				if policy.AdmitAddon(t, a) == nil {
					out = append(out, a+"@")
				}
			}
			return out
		})
		return names(out, toComplete, nil), NoFile | cobra.ShellCompDirectiveNoSpace
	case len(args) == 1:
		out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
			as := s
			ns := ""
			if team := flag(cmd, "team"); team != "" {
				if t, err := s.GetTeam(ctx, team); err == nil {
					ns = t.TeamNamespace()
				}
			}
			addons, err := as.ListAddons(ctx, ns)
			if err != nil {
				return nil
			}
			var out []cobra.Completion
			for _, a := range addons {
				if a.Spec.ClusterRef.Name == args[0] {
					out = append(out, cobra.CompletionWithDesc(a.Spec.Addon, a.Spec.Version))
				}
			}
			return out
		})
		return names(out, toComplete, nil), NoFile
	}
	return nil, NoFile
}
