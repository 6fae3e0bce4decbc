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
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is whoami's computed view, printed by -o json|yaml|jsonpath|go-template (docs/output.md).
type View struct {
	User          string   `json:"user"`
	Groups        []string `json:"groups"`
	PlatformAdmin bool     `json:"platformAdmin"`
	AdminReason   string   `json:"platformAdminReason,omitempty"`
	// Source is where the identity came from: the credentials of a live cluster
	// (kubeconfig and context, butler-cli's login), or --as and where that was set.
	Source string       `json:"source"`
	Teams  []Membership `json:"teams"`
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

// Store is what whoami reads: who asks and the teams (store.Reader), and live, where the
// credentials came from (store.Served).
type Store interface {
	store.Reader
	store.Served
}

var _ Store = store.Store(nil)

// Options are what whoami runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]
	// AsSource is where --as came from (cmdutil.SourceCommandLine, SourceEnv,
	// SourceConfig), for the identity's source on manifests.
	AsSource string
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
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.AsSource = f.Options.AsSource
	return nil
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
	v := View{User: a.Identity.Username, Groups: a.Identity.Groups, PlatformAdmin: a.PlatformAdmin, AdminReason: a.AdminReason,
		Source: identitySource(s, o.AsSource), Teams: []Membership{}}
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
	if len(v.Teams) == 0 {
		noTeamWarning(ctx, o, s, v.User)
	}
	color, width := o.IO.ColorEnabled(), o.IO.Width()
	return o.Printer.Print(output.Doc{
		One:  true,
		View: v,
		Text: func(w io.Writer) error { return describe(w, v, color, width) },
	})
}

// noTeamWarning says on stderr that the identity is in no team, which is rarely what was
// meant (exit 0 still: whoami answers who you are), and names the e-mail a bare name most
// likely stands for: identities are e-mails compared whole.
func noTeamWarning(ctx context.Context, o *Options, s store.Reader, user string) {
	msg := fmt.Sprintf("Warning: %q is in no team: no Team's access lists it or one of its groups", inert.Line(user))
	if emails := lookup.LikelyEmails(ctx, s, user); len(emails) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", inert.Line(strings.Join(emails, " or ")))
	}
	fmt.Fprintln(o.IO.ErrOut, msg)
}

// identitySource says where the identity came from: live, the server's answer for the
// credentials the store uses; on manifests, --as from where it was set.
func identitySource(s store.Served, as string) string {
	if srv, err := s.Server(); err == nil {
		return "the API server, for " + srv.CredentialSource()
	}
	switch as {
	case cmdutil.SourceEnv:
		return "BUTLER_AS (working on manifests)"
	case cmdutil.SourceConfig:
		return "as in the config file (working on manifests)"
	}
	return "--as (working on manifests)"
}

// describe is the human output: who, whether platform admin and why, then each role.
func describe(out io.Writer, v View, color bool, width int) error {
	fmt.Fprintf(out, "User:           %s\n", inert.Text(v.User))
	if len(v.Groups) > 0 {
		fmt.Fprintf(out, "Groups:         %s\n", inert.Text(strings.Join(v.Groups, ", ")))
	}
	if v.Source != "" {
		fmt.Fprintf(out, "Identity from:  %s\n", inert.Text(v.Source))
	}
	admin := "no"
	if v.PlatformAdmin {
		admin = "yes (" + inert.Text(v.AdminReason) + ")"
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
		tb.Row(m.Team, tables.Dash(m.Environment), m.Role, m.Reason) // cells are made inert
	}
	return tb.Render(out)
}
