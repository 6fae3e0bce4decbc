// Package access is `team access`: every member's effective role per environment, and why.
package access

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what team access prints: rows of its computed view (policy.AccessEntry), as
// there is no API object for an effective role. Wide is accepted and shows the same table.
var Spec = output.Spec{List: true, Wide: true}

// Store is what team access reads: the team.
type Store = store.Reader

// Options are the flags and arguments of team access.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team        string
	Environment string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "access TEAM",
		Short: "Show every member's effective role in each environment, and why",
		Long: `Show every member's effective role in each environment of the team. Environment access
can only raise a member's team role, never lower it; team admins are admin everywhere.`,
		Example: `  butlerctl team access payments --manifests examples/payments
  butlerctl team access payments --environment prod -o json`,
		Args: cmdutil.ExactArgs(1, "a TEAM name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Team = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().StringVar(&o.Environment, "environment", "", "Only this environment")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	t, err := lookup.Team(ctx, s, o.Team)
	if err != nil {
		return err
	}
	if o.Environment != "" {
		if _, err := lookup.RequireEnvironment(t, o.Environment); err != nil {
			return err
		}
	}
	d := output.Doc{
		Header: []string{"USER", "ENVIRONMENT", "ROLE", "SOURCE", "WHY"},
		Empty:  fmt.Sprintf("Team %q has no members.", t.Name),
	}
	for _, e := range policy.AccessTable(t, o.Environment) {
		d.Items = append(d.Items, output.Item{
			View:  e,
			Name:  e.User,
			Cells: []string{e.User, tables.Dash(e.Environment), e.Role, e.Source, e.Reason},
		})
	}
	return o.Printer.Print(d)
}
