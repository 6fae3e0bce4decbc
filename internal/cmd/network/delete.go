package network

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// DeleteSpec: a line for people, the deleted pool for programs.
var DeleteSpec = output.Spec{Objects: true, Name: true}

// DeleteOptions are network delete's arguments, flags and what it needs.
type DeleteOptions struct {
	IO        *iostreams.IOStreams
	Store     store.Store
	Name      string
	Namespace string
	Yes       bool
	Print     *output.Flags
}

// NewDeleteCmd returns `network delete`; runF replaces run in tests.
func NewDeleteCmd(f *factory.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	o := &DeleteOptions{}
	cmd := &cobra.Command{
		Use:   "delete NAME [-n NAMESPACE] [--yes]",
		Short: "Delete a NetworkPool, once no IPAllocation of it is Allocated",
		Long: `Delete a NetworkPool. Butler's rule is checked first, with its message: a pool with an
IPAllocation in phase Allocated (in any namespace) is refused, exit 4, and nothing is sent.
On a terminal the pool's name must be typed to confirm; elsewhere pass --yes.`,
		Example: `  butleradm network delete lab --yes`,
		Args:    cmdutil.ExactArgs(1, "a NetworkPool NAME"),
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
			return runDelete(cmd.Context(), o)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, DeleteSpec)
	namespaceFlag(cmd, &o.Namespace)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	return cmd
}

// Complete opens the store and defaults the namespace to butler-system.
func (o *DeleteOptions) Complete(ctx context.Context, f *factory.Factory) error {
	if o.Namespace == "" {
		o.Namespace = v1alpha1.DefaultProviderNamespace
	}
	o.IO = f.IOStreams
	var err error
	o.Store, err = f.Store(ctx)
	return err
}

func runDelete(ctx context.Context, o *DeleteOptions) error {
	p, allocs, err := pool(ctx, o.Store, o.Namespace, o.Name)
	if err != nil {
		return err
	}
	// The rule first: a refused delete asks nothing and sends nothing.
	if d := policy.AdmitNetworkPool(policy.Delete, nil, p, allocs); d.Err != nil {
		return cmdutil.DeniedError(d.Err)
	}
	if !o.Yes {
		pr := prompt.New(o.IO)
		if !pr.CanPrompt() {
			return cmdutil.UsageError("deleting NetworkPool %q needs confirmation: pass --yes (there is no terminal to ask on)", p.Name)
		}
		if err := pr.TypeName(fmt.Sprintf("Delete NetworkPool %s/%s? Type its name to confirm: ", p.Namespace, p.Name), "deletion", p.Name); err != nil {
			return err
		}
	}
	res, err := o.Store.DeleteNetworkPool(ctx, p.Namespace, p.Name)
	if err != nil {
		return err
	}
	return o.Print.Printer(o.IO).Done(p, "networkpool.butler.butlerlabs.dev/"+p.Name+" deleted", store.Where(res, o.Store))
}
