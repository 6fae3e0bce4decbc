// Package delete is `butleradm policy delete`: remove a ClusterCreationPolicy through
// store.CreationPolicies (docs/cluster-creation-policies.md).
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Spec is what policy delete prints: a line for people; for programs the policy deleted.
var Spec = output.Spec{Objects: true, Name: true}

// Options are the flags and arguments of policy delete.
type Options struct {
	Name  string
	Print *output.Flags
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
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
	if err := Authorize(ctx, s, "delete", p.Name); err != nil {
		return err
	}
	w, ok := s.(store.CreationPolicies)
	if !ok {
		return fmt.Errorf("this store cannot write ClusterCreationPolicies")
	}
	res, err := w.DeleteClusterCreationPolicy(ctx, p.Name)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("clustercreationpolicy %q deleted", p.Name)
	return o.Print.Printer(f.IOStreams).Done(p, msg, f.Where(res, s))
}

// Authorize refuses a non platform admin offline, as the server does (live it decides).
func Authorize(ctx context.Context, s store.Store, verb, name string) error {
	if s.Mode() == "live" {
		return nil
	}
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return err
	}
	if actor.PlatformAdmin {
		return nil
	}
	return cmdutil.DeniedError(fmt.Errorf("user %q may not %s ClusterCreationPolicy %q: ClusterCreationPolicies are managed by platform admins",
		actor.Identity.Username, verb, name))
}
