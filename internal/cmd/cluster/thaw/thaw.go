// Package thaw is `butleradm cluster thaw`: lift the write limits of a cluster, clearing
// spec.writePermissions of its Steward TenantControlPlane.
package thaw

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// Store is what cluster thaw reads and writes: the team, who asks, the cluster and its
// control plane's write permissions.
type Store = shared.FreezeStore

var _ Store = store.Store(nil)

// Options are the flags and arguments of cluster thaw.
type Options struct {
	// ChangeOptions are the cluster, its team and the dependencies, from Complete.
	shared.ChangeOptions[Store]
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "thaw NAME --team TEAM",
		Short: "Let tenants change a frozen cluster again",
		Long: `Lift every write limit of a cluster: the blockCreation, blockUpdate and blockDeletion
fields of spec.writePermissions of its Steward TenantControlPlane are removed, and nothing
else changes. Steward then removes its webhook and reports the control plane as no longer
WriteLimited.

Thawing a cluster that is not frozen changes nothing ("unchanged"). Only team admins of
the cluster's team and platform admins may thaw a cluster (exit 4 otherwise; live, the
server's RBAC on tenantcontrolplanes decides too); a cluster without a tenant namespace or
TenantControlPlane yet exits 3.`,
		Example: `  butleradm cluster thaw bob-checkout --team payments
  butleradm cluster thaw bob-checkout --team payments -o json`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, shared.Spec)
	o.TeamFlag(cmd)
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	return o.Apply(ctx, shared.Change{Verb: "thaw", Done: "thawed", Permissions: stewardv1alpha1.Permissions{}})
}
