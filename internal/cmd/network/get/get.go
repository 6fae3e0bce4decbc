// Package get is `butleradm network get`.
package get

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Spec: the pool's IPAllocations as rows for people, the pool for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what network get reads: the pool and its IPAllocations.
type Store = shared.Pools

var _ Store = store.Store(nil)

// Options are network get's arguments and what it needs.
type Options struct {
	// PoolOptions are the pool's name and namespace and the dependencies, from Complete.
	shared.PoolOptions[Store]
}

// NewCmd returns `network get`; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get NAME [-n NAMESPACE]",
		Short: "Show a NetworkPool's IPAllocations (-o yaml: the pool)",
		Example: `  butleradm network get lab
  butleradm network get lab -n butler-system -o yaml`,
		Args: cmdutil.ExactArgs(1, "a NetworkPool NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	shared.NamespaceFlag(cmd, &o.Namespace)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	_, p, allocs, err := o.Pool(ctx)
	if err != nil {
		return err
	}
	d := output.Doc{One: true, View: p,
		Header: []string{"POOL", "CIDR", "RANGES", "IPALLOCATION", "CLUSTER", "TYPE", "PHASE", "START", "END"},
		Empty:  "NetworkPool " + inert.Text(p.Name) + " has no IPAllocations."}
	for i := range allocs {
		a := &allocs[i]
		d.Items = append(d.Items, output.Item{Object: p, Cells: []string{
			inert.Text(p.Name), inert.Text(p.Spec.CIDR), inert.Text(shared.RangesText(p)),
			inert.Text(a.Namespace + "/" + a.Name), inert.Text(a.Spec.TenantClusterRef.Namespace + "/" + a.Spec.TenantClusterRef.Name),
			inert.Text(string(a.Spec.Type)), tables.Dash(inert.Text(string(a.Status.Phase))),
			tables.Dash(inert.Text(a.Status.StartAddress)), tables.Dash(inert.Text(a.Status.EndAddress))}})
	}
	if len(d.Items) == 0 {
		d.Items = []output.Item{{Object: p, Cells: []string{inert.Text(p.Name), inert.Text(p.Spec.CIDR), inert.Text(shared.RangesText(p)), "-", "-", "-", "-", "-", "-"}}}
	}
	return o.Printer.Print(d)
}
