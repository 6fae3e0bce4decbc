// Package get is `butlerctl cluster get`.
package get

import (
	"context"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	watchapi "k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Spec is what cluster get prints: the cluster, -o wide its sizes and owner, -o name its name.
var Spec = output.Spec{Objects: true, Wide: true, Name: true}

// Store is what cluster get reads: what showing clusters reads (shared.ShowStore).
type Store = shared.ShowStore

var _ Store = store.Store(nil)

// Options are what cluster get runs with: its argument and flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the store, the clock (AGE), the -o flags and the printer they
	// choose.
	factory.Deps[Store]
	// Namespace is -n; Offline is true on manifests.
	Namespace string
	Offline   bool

	Name  string
	Team  string
	Watch bool
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one tenant cluster",
		Long: `Show one tenant cluster, found in the team's namespace (--team), in -n NAMESPACE, or,
when neither is given, wherever it is if the name is unique.

The table ends with WRITES, the writes its tenants may not make (butleradm cluster freeze):
read-only, quota or custom, with the control plane's status in parentheses (WriteLimited once
Steward applies the limits); - when nothing is blocked or there is no control plane yet; ?
when the control plane cannot be read (Steward not installed, or no permission to read
TenantControlPlanes).

--watch (live) prints the cluster, then again each time it changes, a row at a time, until
interrupted (as cluster list --watch; rows leave out WRITES).`,
		Example: `  butlerctl cluster get carol-sandbox-1 --team payments
  butlerctl cluster get carol-sandbox-1 --team payments -o yaml
  butlerctl cluster get carol-sandbox-1 --team payments --watch`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamOwnerOptional)
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "Live: after the cluster, print it again each time it changes, until interrupted")
	return cmd
}

// Complete takes from the Factory what run needs: the streams, store, clock and printer,
// -n and whether the store is manifests. It reads nothing.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Namespace, o.Offline = f.Options.Namespace, f.Offline()
	return nil
}

// Validate checks -o, and that --watch has a live cluster to watch, before anything is read.
func (o *Options) Validate() error {
	if o.Watch && o.Offline {
		return cmdutil.UsageError("--watch needs a live cluster: manifests have nothing to watch")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	ns := o.Namespace
	if o.Team != "" {
		t, err := lookup.Team(ctx, s, o.Team)
		if err != nil {
			return err
		}
		ns = t.TeamNamespace()
	}
	var c *v1alpha1.TenantCluster
	if ns != "" {
		c, err = s.GetCluster(ctx, ns, o.Name)
		if apierrors.IsNotFound(err) {
			return cmdutil.NotFoundError("tenant cluster %q not found in namespace %q", o.Name, ns)
		}
		if err != nil {
			return err
		}
	} else {
		all, err := s.ListClusters(ctx, "")
		if err != nil {
			return err
		}
		var found []v1alpha1.TenantCluster
		for _, x := range all {
			if x.Name == o.Name {
				found = append(found, x)
			}
		}
		switch len(found) {
		case 0:
			return cmdutil.NotFoundError("tenant cluster %q not found", o.Name)
		case 1:
			c = &found[0]
		default:
			return cmdutil.UsageError("tenant cluster %q exists in several namespaces: pass --team or -n", o.Name)
		}
	}
	if o.Watch {
		return watch(ctx, s, o, c)
	}
	one := []v1alpha1.TenantCluster{*c}
	var writes map[string]string
	if o.Print.Human() {
		writes = shared.WriteStates(ctx, o.IO.ErrOut, s, one)
	}
	d := clusterview.Doc(one, false, writes, !o.Print.IsWide(), o.Now())
	d.One = true
	return o.Printer.Print(d)
}

// watch is --watch: the cluster, then each new state of it (internal/clusterwatch).
func watch(ctx context.Context, s shared.Watched, o *Options, c *v1alpha1.TenantCluster) error {
	ns, name := c.Namespace, c.Name
	src := clusterwatch.Source{
		List: func(ctx context.Context) ([]v1alpha1.TenantCluster, error) {
			got, err := s.GetCluster(ctx, ns, name)
			if apierrors.IsNotFound(err) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			return []v1alpha1.TenantCluster{*got}, nil
		},
	}
	if w, err := s.Server(); err == nil {
		src.Watch = func(ctx context.Context, rv string) (watchapi.Interface, error) {
			return w.WatchCluster(ctx, ns, name, rv)
		}
	}
	return clusterview.Watch(ctx, o.Print, o.IO, false, o.Now, src)
}
