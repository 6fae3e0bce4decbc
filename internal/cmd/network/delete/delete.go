// Package delete is `butleradm network delete`.
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec: a line for people, the deleted pool for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what network delete reads and writes: the pool and its IPAllocations, and the
// delete; Kind says where the write went.
type Store interface {
	store.Networks
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are network delete's arguments, flags and what it needs.
type Options struct {
	// PoolOptions are the pool's name and namespace and the dependencies, from Complete.
	shared.PoolOptions[Store]
	Yes bool
}

// NewCmd returns `network delete`; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
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
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	shared.NamespaceFlag(cmd, &o.Namespace)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, p, allocs, err := o.Pool(ctx)
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
	res, err := s.DeleteNetworkPool(ctx, p.Namespace, p.Name)
	if err != nil {
		return err
	}
	return o.Printer.Done(p, "networkpool.butler.butlerlabs.dev/"+p.Name+" deleted", store.Where(res, s))
}
