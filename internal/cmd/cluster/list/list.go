// Package list is `butlerctl cluster list`.
package list

import (
	"context"
	"sort"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
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

// Store is what cluster list reads: what showing clusters reads (shared.ShowStore).
type Store = shared.ShowStore

var _ Store = store.Store(nil)

// Options are what cluster list runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store, the clock (AGE), the -o flags and the printer they
	// choose.
	factory.Deps[Store]
	// Namespace is -n; Offline is true on manifests.
	Namespace string
	Offline   bool

	Team          string
	Environment   string
	AllNamespaces bool
	Selector      string
	Watch         bool

	selector labels.Selector
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List tenant clusters",
		Long: `List tenant clusters of a team (--team), of a namespace (-n), or everywhere (-A; the
default when neither is given).`,
		Example: `  butlerctl cluster list --team payments
  butlerctl cluster list --team payments --environment dev -o wide
  butlerctl cluster list -A -l butler.butlerlabs.dev/environment=prod -o name
  butlerctl cluster list --team payments --watch`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmdutil.Details(cmd, `PHASE unknown and WORKERS ?/3 mean the cluster has no status yet: manifests
carry none, and a new cluster has none until its controller reports.

A TTL column follows AGE when a listed cluster has an expiry (cluster create --ttl, cluster
run): the time left, expired once it passed, - for clusters without one. Output printed a
row or a page at a time (--watch, pages on a terminal) leaves it out.

-o wide adds sizes, provider, owner and WRITES, the writes each cluster's tenants may not
make (butleradm cluster freeze): read-only, quota or custom, with the control plane's
status in parentheses (WriteLimited once Steward applies the limits); - when nothing is
blocked or there is no control plane yet; ? when it cannot be read (Steward not
installed, or no permission to read TenantControlPlanes).

On a live cluster -l and --environment are sent to the server, and clusters are listed 500
at a time; on a terminal the table's rows are printed as each page arrives (a header once,
columns sized per page), otherwise the output is printed whole at the end.

--watch (live) prints the clusters, then each cluster again whenever it changes, a row at a
time, until interrupted: a watch that resumes where it stopped when the connection drops,
and falls back to listing every 2 seconds when the server refuses watches. The watch
stream is the only request without a deadline. Rows leave out WRITES.`)
	o.Print = output.Register(cmd, &f.Options.Output, clusterview.Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamFilter("clusters"))
	cmd.Flags().StringVar(&o.Environment, "environment", "", "Only clusters in this environment")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Clusters of every namespace")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Label selector, e.g. butler.butlerlabs.dev/environment=dev")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "Live: after the list, print each cluster again as it changes, until interrupted")
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Namespace, o.Offline = f.Options.Namespace, f.Offline()
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return cmdutil.UsageError("--selector: %v", err)
	}
	o.selector = sel
	return nil
}

func run(ctx context.Context, o *Options) error {
	if o.Watch && o.Offline {
		return cmdutil.UsageError("--watch needs a live cluster: manifests have nothing to watch")
	}
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	ns := o.Namespace
	if o.AllNamespaces {
		ns = ""
	}
	if o.Team != "" && !o.AllNamespaces {
		t, err := lookup.Team(ctx, s, o.Team)
		if err != nil {
			return err
		}
		if o.Environment != "" && len(t.Spec.Environments) > 0 {
			if _, err := lookup.RequireEnvironment(t, o.Environment); err != nil {
				return err
			}
		}
		ns = t.TeamNamespace()
	}
	if o.Watch {
		return watch(ctx, s, o, ns)
	}
	var out []v1alpha1.TenantCluster
	if pager, perr := s.Server(); perr == nil {
		if o.streams() {
			return o.stream(ctx, pager, ns)
		}
		err = pager.PageClusters(ctx, ns, o.serverSelector(), func(page []v1alpha1.TenantCluster, restart bool) error {
			if restart {
				out = nil
			}
			out = append(out, o.kept(page)...)
			return nil
		})
	} else if o.rowsOnly() {
		return o.rows(ctx, s, ns)
	} else {
		var all []v1alpha1.TenantCluster
		all, err = s.ListClusters(ctx, ns)
		out = o.kept(all)
	}
	if err != nil {
		return err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	var writes map[string]string
	if o.Print.IsWide() && len(out) > 0 {
		writes = shared.WriteStates(ctx, o.IO.ErrOut, s, out)
	}
	return o.Printer.Print(clusterview.Doc(out, ns == "", writes, false, o.Now()))
}

// rowsOnly says whether the list prints rows alone: a table, not wide (its WRITES column
// reads the whole list), not sorted by a field of the objects.
func (o *Options) rowsOnly() bool {
	return o.Print.Is(output.Table) && o.Print.SortBy == ""
}

// rows prints the table of a store that pages, keeping each cluster's row, not the
// cluster: a tree of many clusters costs its rows.
func (o *Options) rows(ctx context.Context, pl store.Reader, ns string) error {
	t := clusterview.NewTable(ns == "", o.Now())
	err := pl.ListClusterPages(ctx, ns, func(page []v1alpha1.TenantCluster) error {
		t.Add(o.kept(page))
		return nil
	})
	if err != nil {
		return err
	}
	return o.Printer.Print(t.Doc())
}

// kept is the clusters of list that pass the filters, filtered in list's own array: the
// list is the command's (a page of the server's, or the offline store's copy), and a second
// copy of every cluster listed was a third of what the command held. Live, the server has
// applied the selector (and the environment label) already; checking again costs little
// and keeps one code path for both stores.
func (o *Options) kept(list []v1alpha1.TenantCluster) []v1alpha1.TenantCluster {
	out := list[:0]
	for i := range list {
		if o.keep(&list[i]) {
			out = append(out, list[i])
		}
	}
	clear(list[len(out):]) // what was filtered out goes with the next collection
	if len(out) == 0 {
		return nil
	}
	return out
}

// serverSelector is -l with --environment added as a label requirement, for the server to
// apply. The team is not a label the server can match on alone (a cluster may name its
// team in spec.teamRef only), so it stays a filter on the client.
func (o *Options) serverSelector() string {
	sel := o.selector
	if o.Environment != "" {
		if r, err := labels.NewRequirement(v1alpha1.LabelEnvironment, selection.Equals, []string{o.Environment}); err == nil {
			sel = sel.Add(*r)
		}
	}
	return sel.String()
}

// streams says whether rows are printed as pages arrive: a plain table on a terminal, like
// kubectl's chunked get. Everything else (-o json, a pipe, wide with its control plane
// column, --sort-by) is one document printed at the end.
func (o *Options) streams() bool {
	return o.IO.IsStdoutTTY() && o.Print.Is(output.Table) && o.Print.SortBy == ""
}

// stream prints each page's rows as the page arrives, the header once. A restarted list
// (its snapshot expired) skips the clusters already printed.
func (o *Options) stream(ctx context.Context, pager store.ClusterPager, ns string) error {
	printed := map[string]bool{}
	noHeaders := o.Print.NoHeaders
	defer func() { o.Print.NoHeaders = noHeaders }()
	err := pager.PageClusters(ctx, ns, o.serverSelector(), func(page []v1alpha1.TenantCluster, _ bool) error {
		var rows []v1alpha1.TenantCluster
		for _, c := range o.kept(page) {
			if k := c.Namespace + "/" + c.Name; !printed[k] {
				printed[k] = true
				rows = append(rows, c)
			}
		}
		if len(rows) == 0 {
			return nil
		}
		if err := o.Print.Printer(o.IO).Print(clusterview.Rows(rows, ns == "", o.Now())); err != nil {
			return err
		}
		o.Print.NoHeaders = true
		return nil
	})
	if err != nil {
		return err
	}
	if len(printed) == 0 {
		return o.Print.Printer(o.IO).Print(clusterview.Rows(nil, ns == "", o.Now()))
	}
	return nil
}

// keep applies the filters of the flags.
func (o *Options) keep(c *v1alpha1.TenantCluster) bool {
	switch {
	case o.Team != "" && c.TeamName() != o.Team && c.Labels[v1alpha1.LabelTeam] != o.Team:
		return false
	case o.Environment != "" && c.Environment() != o.Environment:
		return false
	}
	return o.selector.Matches(labels.Set(c.Labels))
}

// watched is what --watch reads: the clusters, and their watch on the server.
type watched interface {
	ListClusters(ctx context.Context, namespace string) ([]v1alpha1.TenantCluster, error)
	store.Served
}

// watch is --watch: the clusters, then each again as it changes (internal/clusterwatch).
func watch(ctx context.Context, s watched, o *Options, ns string) error {
	src := clusterwatch.Source{
		List: func(ctx context.Context) ([]v1alpha1.TenantCluster, error) { return s.ListClusters(ctx, ns) },
		Keep: o.keep,
	}
	if w, err := s.Server(); err == nil {
		src.Watch = func(ctx context.Context, rv string) (watchapi.Interface, error) { return w.WatchClusters(ctx, ns, rv) }
	}
	return clusterview.Watch(ctx, o.Print, o.IO, ns == "", o.Now, src)
}
