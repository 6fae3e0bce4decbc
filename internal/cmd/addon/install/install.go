// Package install is `butlerctl addon install`: one TenantAddon for a cluster, after the
// team's addon restrictions.
package install

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/addonutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec: a line for people, the TenantAddon as created for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Options are the flags and arguments of addon install.
type Options struct {
	Cluster string
	Team    string
	Addon   string
	Version string
	Print   *output.Flags
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "install CLUSTER NAME@VERSION --team TEAM",
		Short: "Install a named addon on a cluster (a TenantAddon)",
		Long: `Create a TenantAddon for a cluster: spec.clusterRef, spec.addon and spec.version, named
CLUSTER-NAME. The controller installs it.

Checked before anything is sent: operator or admin in the cluster's environment (exit 4),
and the team's addon restrictions (allowedAddons, deniedAddons; exit 4 with the same message
cluster create --addon gets). An addon already installed on the cluster is refused (exit 1):
uninstall it first to change its version. On manifests the TenantAddon is a new document
in the cluster's file.`,
		Example: `  butlerctl addon install bob-checkout cert-manager@v1.14.4 --team payments
  butlerctl addon install bob-checkout cert-manager@v1.14.4 --team payments --manifests gitops/ --as bob@example.com`,
		Args: cmdutil.ExactArgs(2, "a CLUSTER name and NAME@VERSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Cluster = args[0]
			if err := o.Print.Validate(cmd); err != nil {
				return err
			}
			var err error
			if o.Addon, o.Version, err = policy.ParseAddonRef(args[1]); err != nil {
				return cmdutil.UsageError("%v", err)
			}
			return run(cmd.Context(), f, o)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().StringVar(&o.Team, "team", "", "Team that owns the cluster (required)")
	return cmd
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	t, err := addonutil.Resolve(ctx, f, o.Team, o.Cluster)
	if err != nil {
		return err
	}
	if err := t.RequireOperator(ctx); err != nil {
		return err
	}
	if err := policy.AdmitAddon(t.Team, o.Addon); err != nil {
		return cmdutil.DeniedError(err)
	}
	if a := t.Find(o.Addon); a != nil {
		return fmt.Errorf("addon %q is already installed on cluster %q (TenantAddon %s, version %s): uninstall it first to change it",
			a.Spec.Addon, t.Cluster.Name, a.Name, a.Spec.Version)
	}
	a := &v1alpha1.TenantAddon{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantAddon},
		ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(t.Cluster.Name + "-" + o.Addon), Namespace: t.Cluster.Namespace},
		Spec: v1alpha1.TenantAddonSpec{
			ClusterRef: v1alpha1.LocalObjectReference{Name: t.Cluster.Name},
			Addon:      o.Addon,
			Version:    o.Version,
		},
	}
	res, err := t.Addons.CreateAddon(ctx, a)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s created (%s %s on cluster %s)", addonutil.ResourceName(a.Name), o.Addon, o.Version, t.Cluster.Name)
	return o.Print.Printer(f.IOStreams).Done(a, msg, f.Where(res, t.Store))
}
