// Package list is `butleradm network list`.
package list

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Spec: rows for people, the NetworkPools for programs.
var Spec = output.Spec{Objects: true, List: true, Name: true}

// Store is what network list reads: the pools and their IPAllocations.
type Store interface {
	ListNetworkPools(ctx context.Context, namespace string) ([]v1alpha1.NetworkPool, error)
	ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error)
}

var _ Store = store.Store(nil)

// Options are network list's flags and what it needs.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Namespace string
}

// NewCmd returns `network list`; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "list [-n NAMESPACE]",
		Short: "List NetworkPools: CIDR, tenant ranges and how many IPAllocations are Allocated",
		Example: `  butleradm network list
  butleradm network list -n butler-system -o yaml`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	shared.NamespaceFlag(cmd, &o.Namespace)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	pools, err := s.ListNetworkPools(ctx, o.Namespace)
	if err != nil {
		return err
	}
	d := output.Doc{Header: []string{"NAMESPACE", "NAME", "CIDR", "RANGES", "ALLOCATED"}, Empty: "No NetworkPools found."}
	for i := range pools {
		p := &pools[i]
		allocs, err := s.ListIPAllocations(ctx, p.Name)
		if err != nil {
			return err
		}
		n := 0
		for _, a := range allocs {
			if a.Status.Phase == v1alpha1.IPAllocationPhaseAllocated {
				n++
			}
		}
		d.Items = append(d.Items, output.Item{Object: p, Cells: []string{
			inert.Text(p.Namespace), inert.Text(p.Name), inert.Text(p.Spec.CIDR), inert.Text(shared.RangesText(p)), fmt.Sprint(n)}})
	}
	return o.Printer.Print(d)
}
