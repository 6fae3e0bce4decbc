// Package freeze is `butleradm cluster freeze`: limit the writes tenants may make to a
// cluster, through spec.writePermissions of its Steward TenantControlPlane.
package freeze

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// Store is what cluster freeze reads and writes: the team, who asks, the cluster and its
// control plane's write permissions.
type Store = shared.FreezeStore

var _ Store = store.Store(nil)

// Options are the flags and arguments of cluster freeze.
type Options struct {
	// ChangeOptions are the cluster, its team and the dependencies, from Complete.
	shared.ChangeOptions[Store]

	ReadOnly    bool
	QuotaMode   bool
	BlockCreate bool
	BlockUpdate bool
	BlockDelete bool

	permissions stewardv1alpha1.Permissions
}

// blockFlags are the flags of a custom combination.
var blockFlags = []string{"block-create", "block-update", "block-delete"}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "freeze NAME --team TEAM [--read-only | --quota-mode | --block-create --block-update --block-delete]",
		Short: "Stop tenants from changing a cluster: read-only, quota mode, or chosen writes",
		Long: `Limit the writes a cluster's tenants may make to its Kubernetes API, for maintenance,
incident response, audits or a datastore over quota. The limits are the
spec.writePermissions of the cluster's Steward TenantControlPlane (named after the cluster,
in its tenant namespace); only that field changes. Steward then rejects the blocked writes
and reports the control plane as WriteLimited.

  --read-only    block creation, update and deletion (the default)
  --quota-mode   block creation and update, allow deletion so tenants can clean up
  --block-*      block exactly the writes named; the others are allowed

Running it again with the same mode changes nothing ("unchanged"). butleradm cluster thaw
lifts the limits; butlerctl cluster get shows them (WRITES).

Only team admins of the cluster's team and platform admins may freeze a cluster (exit 4
otherwise; an environment's admin grant is not enough, the limits hold for the whole
control plane). Live, the server's RBAC on tenantcontrolplanes decides too. A cluster
without a tenant namespace or TenantControlPlane yet exits 3; a management cluster without
Steward's TenantControlPlane API exits 1.`,
		Example: `  butleradm cluster freeze bob-checkout --team payments
  butleradm cluster freeze bob-checkout --team payments --quota-mode
  butleradm cluster freeze bob-checkout --team payments --block-delete -o json`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, shared.Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	fl.BoolVar(&o.ReadOnly, "read-only", false, "Block creation, update and deletion (the default)")
	fl.BoolVar(&o.QuotaMode, "quota-mode", false, "Block creation and update; allow deletion")
	fl.BoolVar(&o.BlockCreate, "block-create", false, "Block creating objects")
	fl.BoolVar(&o.BlockUpdate, "block-update", false, "Block updating objects")
	fl.BoolVar(&o.BlockDelete, "block-delete", false, "Block deleting objects")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete checks -o and picks the permissions from the flags: one of --read-only,
// --quota-mode or the --block-* flags, read-only when none is given.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	fl := cmd.Flags()
	for _, n := range []string{"read-only", "quota-mode"} {
		if v, _ := fl.GetBool(n); cmdutil.IsSet(fl, n) && !v {
			return cmdutil.UsageError("--%s=false: to lift the limits, run butleradm cluster thaw", n)
		}
	}
	custom := false
	for _, n := range blockFlags {
		custom = custom || cmdutil.IsSet(fl, n)
	}
	chosen := 0
	for _, on := range []bool{o.ReadOnly, o.QuotaMode, custom} {
		if on {
			chosen++
		}
	}
	if chosen > 1 {
		return cmdutil.UsageError("--read-only, --quota-mode and the --block-* flags are alternatives: pass one of them")
	}
	switch {
	case o.QuotaMode:
		o.permissions, _ = controlplane.Permissions(controlplane.Quota)
	case custom:
		o.permissions = stewardv1alpha1.Permissions{BlockCreate: o.BlockCreate, BlockUpdate: o.BlockUpdate, BlockDelete: o.BlockDelete}
		if !o.permissions.HasAnyLimitation() {
			return cmdutil.UsageError("the --block-* flags given block nothing: to lift the limits, run butleradm cluster thaw")
		}
	default:
		o.permissions, _ = controlplane.Permissions(controlplane.ReadOnly)
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	return o.Apply(ctx, shared.Change{Verb: "freeze", Done: "frozen", Permissions: o.permissions})
}
