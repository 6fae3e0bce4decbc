package network

import (
	"context"

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

// GetSpec: the pool's IPAllocations as rows for people, the pool for programs.
var GetSpec = output.Spec{Objects: true, Name: true}

// GetOptions are network get's arguments and what it needs.
type GetOptions struct {
	IO        *iostreams.IOStreams
	Store     store.Store
	Name      string
	Namespace string
	Print     *output.Flags
}

// NewGetCmd returns `network get`; runF replaces run in tests.
func NewGetCmd(f *factory.Factory, runF func(context.Context, *GetOptions) error) *cobra.Command {
	o := &GetOptions{}
	cmd := &cobra.Command{
		Use:   "get NAME [-n NAMESPACE]",
		Short: "Show a NetworkPool's IPAllocations (-o yaml: the pool)",
		Example: `  butleradm network get lab
  butleradm network get lab -n butler-system -o yaml`,
		Args: cmdutil.ExactArgs(1, "a NetworkPool NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if err := o.Print.Validate(cmd); err != nil {
				return err
			}
			if err := o.Complete(cmd.Context(), f); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runGet(cmd.Context(), o)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, GetSpec)
	namespaceFlag(cmd, &o.Namespace)
	return cmd
}

// Complete opens the store and defaults the namespace to butler-system.
func (o *GetOptions) Complete(ctx context.Context, f *factory.Factory) error {
	if o.Namespace == "" {
		o.Namespace = v1alpha1.DefaultProviderNamespace
	}
	o.IO = f.IOStreams
	var err error
	o.Store, err = f.Store(ctx)
	return err
}

func runGet(ctx context.Context, o *GetOptions) error {
	p, allocs, err := pool(ctx, o.Store, o.Namespace, o.Name)
	if err != nil {
		return err
	}
	d := output.Doc{One: true, View: p,
		Header: []string{"POOL", "CIDR", "RANGES", "IPALLOCATION", "CLUSTER", "TYPE", "PHASE", "START", "END"},
		Empty:  "NetworkPool " + inert.Text(p.Name) + " has no IPAllocations."}
	for i := range allocs {
		a := &allocs[i]
		d.Items = append(d.Items, output.Item{Object: p, Cells: []string{
			inert.Text(p.Name), inert.Text(p.Spec.CIDR), inert.Text(rangesText(p)),
			inert.Text(a.Namespace + "/" + a.Name), inert.Text(a.Spec.TenantClusterRef.Namespace + "/" + a.Spec.TenantClusterRef.Name),
			inert.Text(string(a.Spec.Type)), tables.Dash(inert.Text(string(a.Status.Phase))),
			tables.Dash(inert.Text(a.Status.StartAddress)), tables.Dash(inert.Text(a.Status.EndAddress))}})
	}
	if len(d.Items) == 0 {
		d.Items = []output.Item{{Object: p, Cells: []string{inert.Text(p.Name), inert.Text(p.Spec.CIDR), inert.Text(rangesText(p)), "-", "-", "-", "-", "-", "-"}}}
	}
	return o.Print.Printer(o.IO).Print(d)
}
