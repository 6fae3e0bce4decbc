package network

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// ListSpec: rows for people, the NetworkPools for programs.
var ListSpec = output.Spec{Objects: true, List: true, Name: true}

// ListOptions are network list's flags and what it needs.
type ListOptions struct {
	IO        *iostreams.IOStreams
	Store     store.Store
	Namespace string
	Print     *output.Flags
}

// NewListCmd returns `network list`; runF replaces run in tests.
func NewListCmd(f *factory.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	o := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list [-n NAMESPACE]",
		Short: "List NetworkPools: CIDR, tenant ranges and how many IPAllocations are Allocated",
		Example: `  butleradm network list
  butleradm network list -n butler-system -o yaml`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Print.Validate(cmd); err != nil {
				return err
			}
			if err := o.Complete(cmd.Context(), f); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runList(cmd.Context(), o)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, ListSpec)
	namespaceFlag(cmd, &o.Namespace)
	return cmd
}

// Complete opens the store.
func (o *ListOptions) Complete(ctx context.Context, f *factory.Factory) error {
	o.IO = f.IOStreams
	var err error
	o.Store, err = f.Store(ctx)
	return err
}

func runList(ctx context.Context, o *ListOptions) error {
	pools, err := o.Store.ListNetworkPools(ctx, o.Namespace)
	if err != nil {
		return err
	}
	d := output.Doc{Header: []string{"NAMESPACE", "NAME", "CIDR", "RANGES", "ALLOCATED"}, Empty: "No NetworkPools found."}
	for i := range pools {
		p := &pools[i]
		allocs, err := o.Store.ListIPAllocations(ctx, p.Name)
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
			inert.Text(p.Namespace), inert.Text(p.Name), inert.Text(p.Spec.CIDR), inert.Text(rangesText(p)), fmt.Sprint(n)}})
	}
	return o.Print.Printer(o.IO).Print(d)
}

// rangesText is the tenant ranges as start-end, or "-" for the whole CIDR.
func rangesText(p *v1alpha1.NetworkPool) string {
	rs := p.Spec.TenantAllocation.EffectiveRanges()
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Start + "-" + r.End
	}
	return strings.Join(parts, ",")
}
