// Package install is `butlerctl addon install`: one TenantAddon for a cluster, after the
// team's addon restrictions.
package install

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/addonutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec: a line for people, the TenantAddon as created for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what addon install reads and writes: the team, who asks and the cluster
// (addonutil.Store), and the TenantAddon it creates; Kind says where the write went.
type Store interface {
	store.Reader
	store.Addons
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are what addon install runs with: its flags and arguments and, from Complete,
// its dependencies.
type Options struct {
	// TargetOptions are CLUSTER, --team and the dependencies, from Complete.
	addonutil.TargetOptions[Store]

	// Ref is NAME@VERSION as typed; Validate parses it into Addon and Version.
	Ref     string
	Addon   string
	Version string
	// A custom Helm chart instead of a catalog addon: NAME then names the TenantAddon.
	Chart, Repo, ReleaseName, ValuesFile string
	DependsOn                            []string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
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
in the cluster's file.

With --chart and --repo the addon is a custom Helm chart (spec.helm): NAME names it, the
chart is checked against the team's addon restrictions, --release-name and --values FILE
(a YAML object, spec.values) go with it, and --depends-on names TenantAddons to install
first (repeatable).`,
		Example: `  butlerctl addon install bob-checkout cert-manager@v1.14.4 --team payments
  butlerctl addon install bob-checkout podinfo@6.7.0 --team payments --chart podinfo --repo https://stefanprodan.github.io/podinfo --values values.yaml --depends-on bob-checkout-cert-manager
  butlerctl addon install bob-checkout cert-manager@v1.14.4 --team payments --manifests gitops/ --as bob@example.com`,
		Args: cmdutil.ExactArgs(2, "a CLUSTER name and NAME@VERSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Cluster, o.Ref = args[0], args[1]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	fl.StringVar(&o.Chart, "chart", "", "Install this Helm chart (with --repo) instead of a catalog addon")
	fl.StringVar(&o.Repo, "repo", "", "The chart's repository URL (https:// or oci://)")
	fl.StringVar(&o.ReleaseName, "release-name", "", "Helm release name (default: the TenantAddon's name)")
	fl.StringVar(&o.ValuesFile, "values", "", "YAML file of the chart's values (spec.values)")
	fl.StringArrayVar(&o.DependsOn, "depends-on", nil, "TenantAddon of the cluster to install first (repeatable)")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete parses NAME@VERSION; a malformed one is a usage error. It reads nothing.
func (o *Options) Complete(*factory.Factory, *cobra.Command, []string) error {
	var err error
	if o.Addon, o.Version, err = policy.ParseAddonRef(o.Ref); err != nil {
		return cmdutil.UsageError("%v", err)
	}
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	switch {
	case o.Chart == "" && o.Repo == "" && (o.ReleaseName != "" || o.ValuesFile != ""):
		return cmdutil.UsageError("--release-name and --values go with --chart and --repo")
	case (o.Chart == "") != (o.Repo == ""):
		return cmdutil.UsageError("--chart and --repo go together")
	}
	return addonutil.RequireTeam(o.Team)
}

// helm builds spec.helm and spec.values from the flags, reading --values; nil without
// --chart.
func (o *Options) helm() (*v1alpha1.TenantAddonHelm, *runtime.RawExtension, error) {
	if o.Chart == "" {
		return nil, nil, nil
	}
	h := &v1alpha1.TenantAddonHelm{Repository: o.Repo, Chart: o.Chart, ReleaseName: o.ReleaseName}
	if o.ValuesFile == "" {
		return h, nil, nil
	}
	b, err := fileio.ReadFile(o.ValuesFile, maxValuesBytes)
	if errors.Is(err, fileio.ErrTooLarge) {
		return nil, nil, cmdutil.UsageError("--values: %s is larger than %d bytes", o.ValuesFile, maxValuesBytes)
	}
	if err != nil {
		return nil, nil, cmdutil.UsageError("--values: %v", err)
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil || len(j) == 0 || j[0] != '{' {
		return nil, nil, cmdutil.UsageError("--values: %s is not a YAML object (spec.values)", o.ValuesFile)
	}
	return h, &runtime.RawExtension{Raw: j}, nil
}

// maxValuesBytes bounds --values: a chart's values, not a data set.
const maxValuesBytes = 1 << 20

func run(ctx context.Context, o *Options) error {
	helm, values, err := o.helm()
	if err != nil {
		return err
	}
	s, t, err := o.Target(ctx)
	if err != nil {
		return err
	}
	if err := t.RequireOperator(ctx); err != nil {
		return err
	}
	judged := o.Addon // a chart is judged by its name against the team's restrictions
	if helm != nil {
		judged = helm.Chart
	}
	if err := policy.AdmitAddon(t.Team, judged); err != nil {
		return cmdutil.DeniedError(err)
	}
	name := strings.ToLower(t.Cluster.Name + "-" + o.Addon)
	if helm == nil {
		if a := t.Find(o.Addon); a != nil {
			return fmt.Errorf("addon %q is already installed on cluster %q (TenantAddon %s, version %s): uninstall it first to change it",
				a.Spec.Addon, t.Cluster.Name, a.Name, a.Spec.Version)
		}
	} else {
		for i := range t.Installed {
			if t.Installed[i].Name == name {
				return fmt.Errorf("TenantAddon %s already exists on cluster %q: uninstall it first to change it", name, t.Cluster.Name)
			}
		}
	}
	a := &v1alpha1.TenantAddon{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantAddon},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: t.Cluster.Namespace},
		Spec: v1alpha1.TenantAddonSpec{
			ClusterRef: v1alpha1.LocalObjectReference{Name: t.Cluster.Name},
			Version:    o.Version,
			Helm:       helm,
			Values:     values,
		},
	}
	if helm == nil {
		a.Spec.Addon = o.Addon
	}
	for _, d := range o.DependsOn {
		a.Spec.DependsOn = append(a.Spec.DependsOn, v1alpha1.LocalObjectReference{Name: d})
	}
	res, err := s.CreateAddon(ctx, a)
	if err != nil {
		return err
	}
	what := o.Addon
	if helm != nil {
		what = "chart " + helm.Chart
	}
	msg := fmt.Sprintf("%s created (%s %s on cluster %s)", addonutil.ResourceName(a.Name), what, o.Version, t.Cluster.Name)
	return o.Printer.Done(a, msg, store.Where(res, s))
}
