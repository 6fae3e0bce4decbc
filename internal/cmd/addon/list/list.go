// Package list is `butlerctl addon list`: the TenantAddons of a cluster.
package list

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/addonutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec: rows for people, the TenantAddons for programs.
var Spec = output.Spec{Objects: true, List: true, Name: true}

// Store is what addon list reads: the team, the cluster and its TenantAddons.
type Store = addonutil.Store

var _ Store = store.Store(nil)

// Options are what addon list runs with: its flags and arguments and, from Complete, its
// dependencies.
type Options struct {
	// TargetOptions are CLUSTER, --team and the dependencies, from Complete.
	addonutil.TargetOptions[Store]
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "list CLUSTER --team TEAM",
		Short: "List the named addons of a cluster",
		Long: `List the TenantAddons that name a cluster: the addon, its version, the phase the
controller reports, and whether the team's addon restrictions still allow it (an addon
installed before a restriction was added keeps running; ALLOWED says no).

The addons a cluster gets by default (the team's and environment's defaultAddons) are
installed by the controller itself and are not TenantAddons: butlerctl env get shows them.`,
		Example: `  butlerctl addon list bob-checkout --team payments
  butlerctl addon list bob-checkout --team payments -o yaml`,
		Args: cmdutil.ExactArgs(1, "a CLUSTER name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Cluster = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	_, t, err := o.Target(ctx)
	if err != nil {
		return err
	}
	d := output.Doc{
		Header: []string{"ADDON", "VERSION", "PHASE", "ALLOWED", "TENANTADDON"},
		Empty:  fmt.Sprintf("Cluster %q has no named addons.", t.Cluster.Name),
	}
	for i := range t.Installed {
		a := &t.Installed[i]
		// A custom Helm addon has no catalog name: its chart stands for it, in the
		// restrictions too, and the column says it is a chart.
		name, shown := a.Spec.Addon, a.Spec.Addon
		if a.Spec.Helm != nil && name == "" {
			name, shown = a.Spec.Helm.Chart, a.Spec.Helm.Chart+" (helm)"
		}
		allowed := "yes"
		if policy.AdmitAddon(t.Team, name) != nil {
			allowed = "no"
		}
		d.Items = append(d.Items, output.Item{
			Object: a,
			Cells:  []string{inert.Text(shown), inert.Text(a.Spec.Version), tables.Dash(a.Status.Phase), allowed, a.Name},
		})
	}
	return o.Printer.Print(d)
}
