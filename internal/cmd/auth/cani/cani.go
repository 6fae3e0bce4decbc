// Package cani is `auth can-i`: whether you may create, scale or delete clusters in a
// team or environment, and why.
package cani

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Answer is can-i in -o json|yaml.
type Answer struct {
	Allowed     bool     `json:"allowed"`
	Verb        string   `json:"verb"`
	User        string   `json:"user"`
	Team        string   `json:"team"`
	Environment string   `json:"environment,omitempty"`
	Role        string   `json:"role"`
	Reasons     []string `json:"reasons"`
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	var team, env string
	cmd := &cobra.Command{
		Use:   "can-i (create|scale|delete) cluster --team TEAM [--environment ENV]",
		Short: "Say whether you may create, scale or delete clusters, and why (exit 0 yes, 4 no)",
		Long: `Say whether you may create, scale or delete clusters in a team or one of its
environments, and why. For create, the environment's caps and your own per-member cap are
counted too. Prints yes or no; exits 0 for yes and 4 for no.`,
		Example:   `  butlerctl auth can-i create cluster --team payments --environment prod --as carol@example.com`,
		ValidArgs: []string{"create", "scale", "delete"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 || (args[1] != "cluster" && args[1] != "clusters" && args[1] != "tenantclusters") {
				return cmdutil.UsageError("want: can-i (create|scale|delete) cluster --team TEAM")
			}
			switch args[0] {
			case "create", "scale", "delete":
				return nil
			}
			return cmdutil.UsageError("unknown verb %q: want create, scale or delete", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), f, args[0], team, env)
		},
	}
	cmd.Flags().StringVar(&team, "team", "", "Team (required)")
	cmd.Flags().StringVar(&env, "environment", "", "Environment of the team")
	return cmd
}

func run(ctx context.Context, f *factory.Factory, verb, team, env string) error {
	if err := f.ValidateOutput("table", "wide", "json", "yaml"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, team)
	if err != nil {
		return err
	}
	if env != "" {
		if _, err := lookup.RequireEnvironment(t, env); err != nil {
			return err
		}
	}
	a, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return err
	}
	role := policy.EnvironmentRole(t, env, a.Identity, a.PlatformAdmin)
	ans := Answer{Verb: verb, User: a.Identity.Username, Team: t.Name, Environment: env, Role: role.Role.String(), Allowed: true}
	scope := fmt.Sprintf("team %q", t.Name)
	if env != "" {
		scope = fmt.Sprintf("environment %q", env)
	}
	if role.Role.CanOperate() {
		ans.Reasons = append(ans.Reasons, fmt.Sprintf("role %s in %s (%s)", role.Role, scope, role.Reason))
	} else {
		ans.Allowed = false
		ans.Reasons = append(ans.Reasons, fmt.Sprintf("role %s in %s (%s); %s needs operator or admin", role.Role, scope, role.Reason, verb))
	}
	if verb == "create" {
		ans.Reasons = append(ans.Reasons, capReasons(t, env, clusters, a.Identity.Username, &ans.Allowed)...)
	}
	out := f.IOStreams.Out
	if f.Options.Output == "json" || f.Options.Output == "yaml" {
		if err := printers.Print(out, f.Options.Output, ans); err != nil {
			return err
		}
	} else {
		if ans.Allowed {
			fmt.Fprintln(out, "yes")
		} else {
			fmt.Fprintln(out, "no")
		}
		for _, r := range ans.Reasons {
			fmt.Fprintf(out, "  - %s\n", r)
		}
	}
	if !ans.Allowed {
		return &cmdutil.SilentError{Code: cmdutil.ExitDenied}
	}
	return nil
}

// capReasons counts the caps a create would meet: the team's cluster ceiling, the
// environment's cap and the requester's own per-member cap.
func capReasons(t *v1alpha1.Team, env string, clusters []v1alpha1.TenantCluster, user string, allowed *bool) []string {
	var out []string
	if l := t.Spec.ResourceLimits; l != nil && l.MaxClusters != nil {
		n, max := len(clusters), int(*l.MaxClusters)
		ok := n+1 <= max
		out = append(out, fmt.Sprintf("team %q has %d of %d cluster(s)%s", t.Name, n, max, full(ok)))
		*allowed = *allowed && ok
	}
	if env == "" {
		return out
	}
	u := policy.EnvironmentUsageOf(t, env, clusters)
	if u.MaxClusters > 0 {
		ok := u.Clusters+1 <= int(u.MaxClusters)
		out = append(out, fmt.Sprintf("environment %q has %d of %d cluster(s)%s", env, u.Clusters, u.MaxClusters, full(ok)))
		*allowed = *allowed && ok
	}
	if u.MaxClustersPerMember > 0 {
		owned := policy.MemberCount(clusters, env, user, "")
		ok := owned+1 <= int(u.MaxClustersPerMember)
		out = append(out, fmt.Sprintf("you own %d of %d cluster(s) allowed per member in %q%s", owned, u.MaxClustersPerMember, env, full(ok)))
		*allowed = *allowed && ok
	}
	return out
}

func full(ok bool) string {
	if ok {
		return ""
	}
	return ": full"
}
