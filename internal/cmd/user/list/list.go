// Package list is `butleradm user list`: the Users, their platform role, how they sign in
// and whether they may.
package list

import (
	"context"
	"sort"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/user/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Spec is what user list prints: a Row each (there is no object to print).
var Spec = output.Spec{List: true, Wide: true, Name: true}

// Store is what user list reads: the users, and nothing else of store.Reader.
type Store interface {
	ListUsers(ctx context.Context) ([]v1alpha1.User, error)
}

var _ Store = store.Store(nil)

// Options are what user list runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

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
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmd.Flags().BoolVar(&o.Admins, "admins", false, "Only platform admins")
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
	sort.Slice(users, func(i, j int) bool { return users[i].Name < users[j].Name })
	d := output.Doc{
		Header:     []string{"NAME", "EMAIL", "PLATFORM ROLE", "AUTH", "PHASE"},
		WideHeader: []string{"DISPLAY NAME", "DISABLED"},
		Empty:      "No users found.",
	}
	for i := range users {
		r := shared.RowOf(&users[i])
		if o.Admins && r.PlatformRole != shared.Admin {
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
