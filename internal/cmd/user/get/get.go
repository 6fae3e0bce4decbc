// Package get is `butleradm user get`: one User, by name or e-mail, with its platform role,
// how it signs in, and the teams whose access lists it.
package get

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/user/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is what user get prints: the user's row and its teams. As for user list, the User
// object is not printed: its status holds invite token hashes and password Secret
// references.
type View struct {
	shared.Row
	Teams []Membership `json:"teams"`
}

// Membership is a team whose spec.access.users names the user, with the role it grants.
type Membership struct {
	Team string `json:"team"`
	Role string `json:"role"`
}

// Spec is what user get prints: its View, -o name the User's name.
var Spec = output.Spec{Name: true}

// Store is what user get reads: the users and the teams, and nothing else of store.Reader.
type Store interface {
	ListUsers(ctx context.Context) ([]v1alpha1.User, error)
	ListTeams(ctx context.Context) ([]v1alpha1.Team, error)
}

var _ Store = store.Store(nil)

// Options are what user get runs with: its argument and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	// User is the User's name or e-mail.
	User string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get NAME|EMAIL",
		Short: "Show one user: platform role, sign-in, phase and the teams that list it",
		Long: `Show one User, found by its name or its e-mail (compared as the server does: trimmed,
lower-cased): its e-mail and display name, platform role, how it signs in, its phase and
whether it is disabled, and the teams whose spec.access.users name it, with the role each
grants. Roles granted through identity-provider groups are not a User's: auth whoami shows
them for the one signed in. Exit 3 when there is no such user.

-o json|yaml print the same view, never the User object: its status holds invite token
hashes and password Secret references.`,
		Example: `  butleradm user get bob --manifests examples/payments
  butleradm user get bob@example.com -o json`,
		Args: cmdutil.ExactArgs(1, "a user NAME or EMAIL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.User = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
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
	users, err := s.ListUsers(ctx)
	if err != nil {
		return err
	}
	u := find(users, o.User)
	if u == nil {
		return cmdutil.NotFoundError("user %q not found: no User has that name or e-mail (butleradm user list)", o.User)
	}
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return err
	}
	v := View{Row: shared.RowOf(u), Teams: memberships(teams, u.Spec.Email)}
	return o.Printer.Print(output.Doc{One: true, View: v,
		Items: []output.Item{{Name: "user.butler.butlerlabs.dev/" + u.Name}},
		Text:  func(w io.Writer) error { return describe(w, v) }})
}

// find is the User named name, else the one whose e-mail is name.
func find(users []v1alpha1.User, name string) *v1alpha1.User {
	for i := range users {
		if users[i].Name == name {
			return &users[i]
		}
	}
	email := policy.NormalizeEmail(name)
	for i := range users {
		if policy.NormalizeEmail(users[i].Spec.Email) == email {
			return &users[i]
		}
	}
	return nil
}

// memberships are the teams whose users[] name email, with the role they grant, by team.
func memberships(teams []v1alpha1.Team, email string) []Membership {
	out := []Membership{}
	id := policy.Identity{Username: email}
	for i := range teams {
		if r := policy.TeamRole(&teams[i], id, false); r.Role != policy.RoleNone {
			out = append(out, Membership{Team: teams[i].Name, Role: r.Role.String()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Team < out[j].Team })
	return out
}

// describe is the view for people, one field a line.
func describe(w io.Writer, v View) error {
	disabled := "no"
	if v.Disabled {
		disabled = "yes"
	}
	teams := make([]string, len(v.Teams))
	for i, m := range v.Teams {
		teams[i] = inert.Text(m.Team) + " (" + m.Role + ")"
	}
	for _, l := range [][2]string{
		{"Name", inert.Text(v.Name)}, {"Email", inert.Text(v.Email)}, {"Display name", tables.Dash(inert.Text(v.DisplayName))},
		{"Platform role", tables.Dash(v.PlatformRole)}, {"Auth", inert.Text(v.Auth)}, {"Phase", tables.Dash(inert.Text(v.Phase))},
		{"Disabled", disabled}, {"Teams", tables.Dash(strings.Join(teams, ", "))},
	} {
		if _, err := fmt.Fprintf(w, "%-15s%s\n", l[0]+":", l[1]); err != nil {
			return err
		}
	}
	return nil
}
