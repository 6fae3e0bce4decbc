// Package whoami is `auth whoami`: the identity, platform role and team roles.
package whoami

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is whoami in -o json|yaml.
type View struct {
	User          string       `json:"user"`
	Groups        []string     `json:"groups"`
	PlatformAdmin bool         `json:"platformAdmin"`
	AdminReason   string       `json:"platformAdminReason,omitempty"`
	Teams         []Membership `json:"teams"`
}

// Membership is a role in a team or one of its environments.
type Membership struct {
	Team        string `json:"team"`
	Environment string `json:"environment,omitempty"`
	Role        string `json:"role"`
	Reason      string `json:"reason"`
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "whoami",
		Short:   "Show who you are, whether you are a platform admin, and your roles",
		Example: `  butlerctl auth whoami --manifests examples/payments --as bob@example.com`,
		Args:    cmdutil.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), f) },
	}
}

func run(ctx context.Context, f *factory.Factory) error {
	if err := f.ValidateOutput("table", "wide", "json", "yaml"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	a, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return err
	}
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return err
	}
	v := View{User: a.Identity.Username, Groups: a.Identity.Groups, PlatformAdmin: a.PlatformAdmin, AdminReason: a.AdminReason, Teams: []Membership{}}
	if v.Groups == nil {
		v.Groups = []string{}
	}
	for i := range teams {
		t := &teams[i]
		r := policy.TeamRole(t, a.Identity, a.PlatformAdmin)
		if r.Role == policy.RoleNone {
			continue
		}
		v.Teams = append(v.Teams, Membership{Team: t.Name, Role: r.Role.String(), Reason: r.Reason})
		for _, e := range t.Spec.Environments {
			er := policy.EnvironmentRole(t, e.Name, a.Identity, a.PlatformAdmin)
			v.Teams = append(v.Teams, Membership{Team: t.Name, Environment: e.Name, Role: er.Role.String(), Reason: er.Reason})
		}
	}
	out := f.IOStreams.Out
	if f.Options.Output == "json" || f.Options.Output == "yaml" {
		return printers.Print(out, f.Options.Output, v)
	}
	fmt.Fprintf(out, "User:           %s\n", v.User)
	if len(v.Groups) > 0 {
		fmt.Fprintf(out, "Groups:         %s\n", strings.Join(v.Groups, ", "))
	}
	admin := "no"
	if v.PlatformAdmin {
		admin = "yes (" + v.AdminReason + ")"
	}
	fmt.Fprintf(out, "Platform admin: %s\n", admin)
	if len(v.Teams) == 0 {
		fmt.Fprintln(out, "Teams:          none")
		return nil
	}
	fmt.Fprintln(out)
	tb := printers.NewTable(f.IOStreams.ColorEnabled(), "TEAM", "ENVIRONMENT", "ROLE", "WHY")
	for _, m := range v.Teams {
		env := m.Environment
		if env == "" {
			env = "-"
		}
		tb.Row(m.Team, env, m.Role, m.Reason)
	}
	return tb.Render(out)
}
