// Package get is `butleradm policy get`: one ClusterCreationPolicy.
package get

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Spec is what policy get prints: the ClusterCreationPolicy.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what policy get reads: the policy.
type Store = store.Reader

// Options are the flags and arguments of policy get.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Name string
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
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	return cmd
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
