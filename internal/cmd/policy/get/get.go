// Package get is `butleradm policy get`: one ClusterCreationPolicy.
package get

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/list"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Spec is what policy get prints: the ClusterCreationPolicy.
var Spec = output.Spec{Objects: true, Name: true}

// Options are the flags and arguments of policy get.
type Options struct {
	Name  string
	Print *output.Flags
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one ClusterCreationPolicy",
		Example: `  butleradm policy get payments-images --manifests DIR
  butleradm policy get payments-images -o yaml`,
	}
	o.Print = f.NamedCommand(cmd, "a policy NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return run(cmd.Context(), f, o)
	})
	return cmd
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	p, err := lookup.Policy(ctx, s, o.Name)
	if err != nil {
		return err
	}
	return o.Print.Printer(f.IOStreams).Print(output.Doc{
		One:    true,
		Header: []string{"NAME", "TIER", "TEAM", "ENVIRONMENT", "PROVIDERS", "OPTIONS"},
		Items:  []output.Item{{Object: p, Cells: list.Cells(p)}},
	})
}
