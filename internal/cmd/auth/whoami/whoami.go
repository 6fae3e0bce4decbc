// Package whoami is `auth whoami`: the identity, platform role and team roles.
package whoami

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is whoami's computed view, printed by -o json|yaml|jsonpath|go-template (docs/output.md).
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

// Spec is what whoami prints: its computed view (View); there is no API object for who
// you are. Wide is accepted and shows the same text.
var Spec = output.Spec{Wide: true}

// Options are what whoami runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps
}

// NewCmd returns the command; runF, when not nil, runs instead of run (tests assert what
// the command parsed and completed).
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "whoami",
		Short:   "Show who you are, whether you are a platform admin, and your roles",
		Example: `  butlerctl auth whoami --manifests examples/payments --as bob@example.com`,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
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
	color, width := o.IO.ColorEnabled(), o.IO.Width()
	return o.Printer.Print(output.Doc{
		One:  true,
		View: v,
		Text: func(w io.Writer) error { return describe(w, v, color, width) },
	})
}

// describe is the human output: who, whether platform admin and why, then each role.
func describe(out io.Writer, v View, color bool, width int) error {
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
		_, err := fmt.Fprintln(out, "Teams:          none")
		return err
	}
	fmt.Fprintln(out)
	tb := tables.NewTable(color, "TEAM", "ENVIRONMENT", "ROLE", "WHY")
	tb.Width = width // fit the terminal (tables.Table.fit)
	for _, m := range v.Teams {
		tb.Row(m.Team, tables.Dash(m.Environment), m.Role, m.Reason)
	}
	return tb.Render(out)
}
