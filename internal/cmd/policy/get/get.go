// Package get is `butleradm policy get`: one ClusterCreationPolicy.
package get

import (
	"context"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Spec is what policy get prints: the ClusterCreationPolicy.
var Spec = output.Spec{Objects: true, Name: true}

// Options are the flags and arguments of policy get.
type Options struct {
	IO    *iostreams.IOStreams
	Store func(context.Context) (store.Store, error)
	// Printer prints by -o; Complete resolves it.
	Printer *output.Printer
	Name    string
	Print   *output.Flags
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one ClusterCreationPolicy",
		Example: `  butleradm policy get payments-images --manifests DIR
  butleradm policy get payments-images -o yaml`,
	}
	o.Print = f.NamedCommand(cmd, "a policy NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		o.Complete(f)
		if runF != nil {
			return runF(o)
		}
		return run(cmd.Context(), o)
	})
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory) {
	o.IO, o.Store = f.IOStreams, f.Store
	o.Printer = o.Print.Printer(f.IOStreams)
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	p, err := lookup.Policy(ctx, s, o.Name)
	if err != nil {
		return err
	}
	return o.Printer.Print(output.Doc{
		One:    true,
		Header: []string{"NAME", "TIER", "TEAM", "ENVIRONMENT", "PROVIDERS", "OPTIONS"},
		Items:  []output.Item{{Object: p, Cells: policyutil.Cells(p)}},
	})
}
