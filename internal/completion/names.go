package completion

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Names read from the store: teams, environments, clusters, providers, users, namespaces
// and access entries.

func (c *completer) teams(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		teams, err := s.ListTeams(ctx)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for _, t := range teams {
			out = append(out, cobra.CompletionWithDesc(t.Name, describe(t.Spec.DisplayName)))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// environments are those of the team given with --team; without one, those of every team.
func (c *completer) environments(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		var teams []v1alpha1.Team
		if name := flag(cmd, "team"); name != "" {
			t, err := s.GetTeam(ctx, name)
			if err != nil {
				return nil
			}
			teams = []v1alpha1.Team{*t}
		} else {
			var err error
			if teams, err = s.ListTeams(ctx); err != nil {
				return nil
			}
		}
		var out []cobra.Completion
		for _, t := range teams {
			for _, e := range t.Spec.Environments {
				d := e.Description
				if len(teams) > 1 {
					d = describe("team "+t.Name, e.Description)
				}
				out = append(out, cobra.CompletionWithDesc(e.Name, describe(d)))
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// clusters are those of --team, else of -n, else of every namespace the identity can list.
func (c *completer) clusters(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		ns := flag(cmd, "namespace")
		if team := flag(cmd, "team"); team != "" {
			t, err := s.GetTeam(ctx, team)
			if err != nil {
				return nil
			}
			ns = t.TeamNamespace()
		}
		list, err := s.ListClusters(ctx, ns)
		if err != nil && ns == "" {
			// Not allowed to list every namespace: list each team's.
			teams, terr := s.ListTeams(ctx)
			if terr != nil {
				return nil
			}
			for i := range teams {
				l, err := s.ListClusters(ctx, teams[i].TeamNamespace())
				if err == nil {
					list = append(list, l...)
				}
			}
		}
		var out []cobra.Completion
		for i := range list {
			cl := &list[i]
			out = append(out, cobra.CompletionWithDesc(cl.Name, describe("team "+cl.TeamName(), envDesc(cl.Environment()))))
		}
		return out
	})
	return names(out, toComplete, args), NoFile
}

func envDesc(env string) string {
	if env == "" {
		return "no environment"
	}
	return "environment " + env
}

// providers are the ProviderConfigs visible to --team (the platform's and the team's own),
// else every one the identity can list.
func (c *completer) providers(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		var namespaces []string
		if team := flag(cmd, "team"); team != "" {
			t, err := s.GetTeam(ctx, team)
			if err != nil {
				return nil
			}
			namespaces = []string{t.TeamNamespace(), v1alpha1.PlatformNamespace}
		} else {
			namespaces = []string{""}
		}
		var out []cobra.Completion
		for _, ns := range namespaces {
			list, err := s.ListProviderConfigs(ctx, ns)
			if err != nil && ns == "" {
				list, err = s.ListProviderConfigs(ctx, v1alpha1.PlatformNamespace)
			}
			if err != nil {
				continue
			}
			for i := range list {
				pc := &list[i]
				out = append(out, cobra.CompletionWithDesc(pc.Name, describe(pc.Spec.Provider, pc.ScopeType()+" scope")))
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// users are the e-mails of the User objects (for --as).
func (c *completer) users(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		users, err := s.ListUsers(ctx)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for _, u := range users {
			if u.Spec.Email != "" {
				out = append(out, cobra.CompletionWithDesc(u.Spec.Email, describe(u.Spec.DisplayName)))
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// namespaces are the teams' namespaces and the platform's.
func (c *completer) namespaces(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		teams, err := s.ListTeams(ctx)
		if err != nil {
			return nil
		}
		out := []cobra.Completion{cobra.CompletionWithDesc(v1alpha1.PlatformNamespace, "the platform")}
		for i := range teams {
			out = append(out, cobra.CompletionWithDesc(teams[i].TeamNamespace(), "team "+teams[i].Name))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile
}

// accessUser completes EMAIL:ROLE: the members of --team (else the User objects) before
// the colon, the roles after it.
func (c *completer) accessUser(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if who, _, ok := strings.Cut(toComplete, ":"); ok {
		return withPrefix(who+":", roles, toComplete), NoFile
	}
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		var out []cobra.Completion
		if team := flag(cmd, "team"); team != "" {
			if t, err := s.GetTeam(ctx, team); err == nil {
				for _, u := range t.Spec.Access.Users {
					out = append(out, cobra.CompletionWithDesc(u.Name+":", "team "+string(u.Role)))
				}
				return out
			}
		}
		users, err := s.ListUsers(ctx)
		if err != nil {
			return nil
		}
		for _, u := range users {
			if u.Spec.Email != "" {
				out = append(out, u.Spec.Email+":")
			}
		}
		return out
	})
	return names(out, toComplete, nil), NoFile | cobra.ShellCompDirectiveNoSpace
}

// accessGroup completes NAME:ROLE[:IDENTITY-PROVIDER]: the groups of --team before the
// first colon, the roles after it, the identity providers after the second.
func (c *completer) accessGroup(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	parts := strings.SplitN(toComplete, ":", 3)
	switch len(parts) {
	case 2:
		return withPrefix(parts[0]+":", roles, toComplete), NoFile
	case 3:
		out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
			idps, err := s.ListIdentityProviders(ctx)
			if err != nil {
				return nil
			}
			var out []cobra.Completion
			for _, p := range idps {
				out = append(out, cobra.CompletionWithDesc(parts[0]+":"+parts[1]+":"+p.Name, describe(p.Spec.DisplayName)))
			}
			return out
		})
		return names(out, toComplete, nil), NoFile
	}
	out := c.withStore(cmd, func(ctx context.Context, s store.Store) []cobra.Completion {
		team := flag(cmd, "team")
		if team == "" {
			return nil
		}
		t, err := s.GetTeam(ctx, team)
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for _, g := range t.Spec.Access.Groups {
			out = append(out, cobra.CompletionWithDesc(g.Name+":", "team "+string(g.Role)))
		}
		return out
	})
	return names(out, toComplete, nil), NoFile | cobra.ShellCompDirectiveNoSpace
}

// withPrefix puts prefix before each value and keeps those starting with toComplete.
func withPrefix(prefix string, values []cobra.Completion, toComplete string) []cobra.Completion {
	out := make([]cobra.Completion, 0, len(values))
	for _, v := range values {
		out = append(out, prefix+v)
	}
	return filter(out, toComplete)
}
