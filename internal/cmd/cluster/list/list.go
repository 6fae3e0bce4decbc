// Package list is `butlerctl cluster list`.
package list

import (
	"context"
	"sort"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Options are the flags of cluster list.
type Options struct {
	Team          string
	Environment   string
	AllNamespaces bool
	Selector      string

	Print    *output.Flags
	selector labels.Selector
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List tenant clusters",
		Long: `List tenant clusters of a team (--team), of a namespace (-n), or everywhere (-A; the
default when neither is given).`,
		Example: `  butlerctl cluster list --team payments
  butlerctl cluster list --team payments --environment dev -o wide
  butlerctl cluster list -A -l butler.butlerlabs.dev/environment=prod -o name`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(cmd); err != nil {
				return err
			}
			return run(cmd.Context(), f, o)
		},
	}
	cmdutil.Details(cmd, `PHASE unknown and WORKERS ?/3 mean the cluster has no status yet: manifests
carry none, and a new cluster has none until its controller reports.

-o wide adds sizes, provider, owner and WRITES, the writes each cluster's tenants may not
make (butleradm cluster freeze): read-only, quota or custom, with the control plane's
status in parentheses (WriteLimited once Steward applies the limits); - when nothing is
blocked or there is no control plane yet; ? when it cannot be read (Steward not
installed, or no permission to read TenantControlPlanes).`)
	o.Print = output.Register(cmd, &f.Options.Output, clusterview.Spec)
	cmd.Flags().StringVar(&o.Team, "team", "", "Only clusters of this team")
	cmd.Flags().StringVar(&o.Environment, "environment", "", "Only clusters in this environment")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Clusters of every namespace")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Label selector, e.g. butler.butlerlabs.dev/environment=dev")
	return cmd
}

// Validate checks the flags before anything is read.
func (o *Options) Validate(cmd *cobra.Command) error {
	if err := o.Print.Validate(cmd); err != nil {
		return err
	}
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return cmdutil.UsageError("--selector: %v", err)
	}
	o.selector = sel
	return nil
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	ns := f.Options.Namespace
	if o.AllNamespaces {
		ns = ""
	}
	if o.Team != "" && !o.AllNamespaces {
		t, err := lookup.Team(ctx, s, o.Team)
		if err != nil {
			return err
		}
		ns = t.TeamNamespace()
	}
	all, err := s.ListClusters(ctx, ns)
	if err != nil {
		return err
	}
	var out []v1alpha1.TenantCluster
	for _, c := range all {
		if o.Team != "" && c.TeamName() != o.Team && c.Labels[v1alpha1.LabelTeam] != o.Team {
			continue
		}
		if o.Environment != "" && c.Environment() != o.Environment {
			continue
		}
		if !o.selector.Matches(labels.Set(c.Labels)) {
			continue
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	var writes map[string]string
	if o.Print.IsWide() && len(out) > 0 {
		writes = controlplane.StatesForTable(ctx, f, s, out)
	}
	return o.Print.Printer(f.IOStreams).Print(clusterview.Doc(out, ns == "", writes, false, f.Now()))
}
