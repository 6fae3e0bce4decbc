// Package uninstall is `butlerctl addon uninstall`: delete a cluster's TenantAddon.
package uninstall

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/addonutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Spec: a line for people, the TenantAddon as it was for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what addon uninstall reads and writes: the team, who asks, the cluster and its
// TenantAddons (addonutil.Store), and the one it deletes; Kind says where the write went.
type Store interface {
	store.Reader
	store.Addons
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are what addon uninstall runs with: its flags and arguments and, from
// Complete, its dependencies.
type Options struct {
	// TargetOptions are CLUSTER, --team and the dependencies, from Complete.
	addonutil.TargetOptions[Store]

	Addon string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "uninstall CLUSTER NAME --team TEAM",
		Aliases: []string{"remove", "rm"},
		Short:   "Uninstall a named addon from a cluster (delete its TenantAddon)",
		Long: `Delete the TenantAddon of the named addon on a cluster (exit 3 when there is none); the
controller removes the addon. Needs operator or admin in the cluster's environment (exit 4).
The team's addon restrictions do not apply: a denied addon may always be removed. Live, the
delete carries the uid that was read; on manifests the TenantAddon's document is removed.`,
		Example: `  butlerctl addon uninstall bob-checkout cert-manager --team payments`,
		Args:    cmdutil.ExactArgs(2, "a CLUSTER name and an addon NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Cluster, o.Addon = args[0], args[1]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd)
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, t, err := o.Target(ctx)
	if err != nil {
		return err
	}
	a := t.Find(o.Addon)
	if a == nil {
		return cmdutil.NotFoundError("addon %q is not installed on cluster %q (no TenantAddon names it)", o.Addon, t.Cluster.Name)
	}
	if err := t.RequireOperator(ctx); err != nil {
		return err
	}
	res, err := s.DeleteAddon(ctx, a)
	if err != nil {
		return err
	}
	return o.Printer.Done(a, addonutil.ResourceName(a.Name)+" deleted", store.Where(res, s))
}
