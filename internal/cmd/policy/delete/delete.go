// Package delete is `butleradm policy delete`: remove a ClusterCreationPolicy through
// store.CreationPolicies (docs/cluster-creation-policies.md).
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Spec is what policy delete prints: a line for people; for programs the policy deleted.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what policy delete reads and writes: the policy and who asks, and the one
// write.
type Store = policyutil.Writer

// Options are the flags and arguments of policy delete.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Name string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "delete NAME",
		Aliases: []string{"rm"},
		Short:   "Delete a ClusterCreationPolicy (platform admins only)",
		Long: `Delete a ClusterCreationPolicy. Only platform admins may: live, the server decides; working
on manifests, the identity given with --as must be a platform admin (exit 4 otherwise), and
the policy's document is removed from its file.`,
		Example: `  butleradm policy delete payments-images --manifests DIR --as admin@example.com`,
	}
	o.Print = f.NamedCommand(cmd, "a policy NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	factory.AddDryRun(cmd, f)
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
	if err := policyutil.Authorize(ctx, s, "delete", p.Name); err != nil {
		return err
	}
	res, err := s.DeleteClusterCreationPolicy(ctx, p.Name)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("clustercreationpolicy %q deleted", p.Name)
	return o.Printer.Done(p, msg, store.Where(res, s))
}
