// Package list is `butleradm user list`: the Users, their platform role, how they sign in
// and whether they may.
package list

import (
	"context"
	"sort"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Row is one user in the computed view. The User objects themselves are not printed: their
// status holds invite token hashes and password Secret references, which are nobody's
// business on a terminal or in a CI log.
type Row struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	DisplayName  string `json:"displayName,omitempty"`
	PlatformRole string `json:"platformRole"`
	Auth         string `json:"authType"`
	Phase        string `json:"phase,omitempty"`
	Disabled     bool   `json:"disabled"`
}

// admin is spec.platformRole of a platform admin (the CRD's enum: admin, viewer or none).
// Admins by an identity provider's group are not Users' roles: auth whoami tells them.
const admin = "admin"

// Spec is what user list prints: a Row each (there is no object to print).
var Spec = output.Spec{List: true, Wide: true, Name: true}

// Options are what user list runs with: its flags and, from Complete, its dependencies.
type Options struct {
	IO    *iostreams.IOStreams
	Store func(context.Context) (store.Store, error)
	Print *output.Flags
	// Printer prints by -o; Complete resolves it.
	Printer *output.Printer
	// Admins keeps the platform admins only (--admins).
	Admins bool
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List users with their platform role, sign-in and phase",
		Example: `  butleradm user list --manifests examples/payments
  butleradm user list --admins -o name`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, f, o, runF, run)
		},
	}
	cmd.Flags().BoolVar(&o.Admins, "admins", false, "Only platform admins")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory) {
	o.IO, o.Store = f.IOStreams, f.Store
	o.Printer = o.Print.Printer(f.IOStreams)
}

// Validate checks the flags before anything is read.
func (o *Options) Validate(cmd *cobra.Command) error { return o.Print.Validate(cmd) }

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	users, err := s.ListUsers(ctx)
	if err != nil {
		return err
	}
	sort.Slice(users, func(i, j int) bool { return users[i].Name < users[j].Name })
	d := output.Doc{
		Header:     []string{"NAME", "EMAIL", "PLATFORM ROLE", "AUTH", "PHASE"},
		WideHeader: []string{"DISPLAY NAME", "DISABLED"},
		Empty:      "No users found.",
	}
	for i := range users {
		r := RowOf(&users[i])
		if o.Admins && r.PlatformRole != admin {
			continue
		}
		disabled := "no"
		if r.Disabled {
			disabled = "yes"
		}
		d.Items = append(d.Items, output.Item{
			View:      r,
			Name:      "user.butler.butlerlabs.dev/" + r.Name,
			Cells:     []string{inert.Text(r.Name), inert.Text(r.Email), tables.Dash(r.PlatformRole), tables.Dash(inert.Text(r.Auth)), tables.Dash(inert.Text(r.Phase))},
			WideCells: []string{tables.Dash(inert.Text(r.DisplayName)), disabled},
		})
	}
	return o.Printer.Print(d)
}

// RowOf is a user's row. The platform role is spec.platformRole, else "admin" for the
// deprecated spec.isPlatformAdmin; the sign-in is spec.authType, "internal" by default as
// the CRD defaults it.
func RowOf(u *v1alpha1.User) Row {
	role := u.Spec.PlatformRole
	if role == "" && u.Spec.IsPlatformAdmin {
		role = admin
	}
	auth := u.Spec.AuthType
	if auth == "" {
		auth = "internal"
	}
	return Row{Name: u.Name, Email: u.Spec.Email, DisplayName: u.Spec.DisplayName, PlatformRole: role,
		Auth: auth, Phase: string(u.Status.Phase), Disabled: u.Spec.Disabled}
}
