// Package delete is `butlerctl cluster delete`: delete a tenant cluster after a
// confirmation.
package delete

import (
	"context"
	"fmt"

	"github.com/butlerdotdev/butler-toolkit/internal/store"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Store is what cluster delete reads and writes: the team, who asks and the clusters
// (store.Reader), the deletes, and where they went.
type Store interface {
	store.Reader
	store.ClusterWriter
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are the flags and arguments of cluster delete.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]

	Yes      bool
	Selector string
}

// Spec: the structured formats print the TenantCluster as it was before the delete, -o name
// its kind.group/name (docs/output.md).
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "delete (NAME | -l SELECTOR) --team TEAM [--yes]",
		Aliases: []string{"rm"},
		Short:   "Delete a tenant cluster",
		Long: `Delete a tenant cluster: its control plane, its workers and what runs on them go with it.

On a terminal you are asked to type the cluster's name to confirm; without one (scripts,
CI) pass --yes (exit 2 otherwise).

Deleting needs operator or admin in the cluster's environment (exit 4 otherwise). Live, the
delete carries the uid that was read, so a cluster deleted and created again under the same
name meanwhile is left alone. -l deletes every cluster of the team whose labels match
(butlerctl cluster run labels its clusters with the CI run and pull request); it needs
--yes, and operator rights on each, checked before the first delete. On manifests the cluster's document is removed from its file
(and the file, once nothing else is left in it); TenantAddon documents are left as they are.`,
		Example: `  butlerctl cluster delete carol-sandbox-2 --team payments
  butlerctl cluster delete carol-sandbox-2 --team payments --yes
  butlerctl cluster delete --team payments -l butler.butlerlabs.dev/ci-pull-request=42 --yes`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Yes, "force", false, "Same as --yes (butler-cli's name)")
	fl.StringVarP(&o.Selector, "selector", "l", "", "Delete every cluster of the team whose labels match, e.g. butler.butlerlabs.dev/ci-run=123 (needs --yes)")
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, team, actor, err := o.TeamAndActor(ctx)
	if err != nil {
		return err
	}
	if o.Selector != "" {
		return deleteSelected(ctx, o, s, team, actor)
	}
	c, err := lookup.Cluster(ctx, s, team, o.Name)
	if err != nil {
		return err
	}
	if _, err := lookup.RequireOperator(team, c, actor, "delete"); err != nil {
		return err
	}
	if !o.Yes {
		pr := prompt.New(o.IO)
		if !pr.CanPrompt() {
			return cmdutil.UsageError("deleting tenant cluster %q needs confirmation: pass --yes (there is no terminal to ask on)", c.Name)
		}
		if err := confirm(pr, c); err != nil {
			return err
		}
	}
	res, err := s.DeleteCluster(ctx, c)
	if err != nil {
		return err
	}
	msg := "tenantcluster.butler.butlerlabs.dev/" + c.Name + " deleted"
	return o.Printer.Done(clusterview.WithTypeMeta(*c), msg, store.Where(res, s))
}

// confirm asks for the cluster's name.
func confirm(pr *prompt.Prompter, c *v1alpha1.TenantCluster) error {
	env := c.Labels[v1alpha1.LabelEnvironment]
	if env == "" {
		env = "no environment"
	} else {
		env = "environment " + env
	}
	return pr.TypeName(fmt.Sprintf("Delete TenantCluster %s/%s (%s, %d worker(s))? Its control plane and workers go with it. Type its name to confirm: ",
		c.Namespace, c.Name, env, c.Spec.Workers.Replicas), "deletion", c.Name)
}
