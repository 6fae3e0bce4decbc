// Package events is `butlerctl cluster events`: the core/v1 Events about one tenant
// cluster, oldest first.
package events

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Store is what cluster events reads: the team, the cluster and its events.
type Store interface {
	store.Reader
	ListEvents(ctx context.Context, namespace, kind, name string) ([]corev1.Event, error)
}

var _ Store = store.Store(nil)

// Options are the flags and arguments of cluster events.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]
}

// Spec: a table for people, the Events for programs.
var Spec = output.Spec{Objects: true, List: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "events NAME --team TEAM",
		Short: "List the events of a tenant cluster, oldest first",
		Long: fmt.Sprintf(`List the Kubernetes events (core/v1 Event) about a tenant cluster, the ones its
controller records as it provisions, upgrades and scales it, sorted by when each last
happened, oldest first (as kubectl events). At most %d are read. Live only: manifests have
no events (exit 2).`, store.MaxEvents),
		Example: `  butlerctl cluster events bob-checkout --team payments
  butlerctl cluster events bob-checkout --team payments -o yaml`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd)
	return cmd
}

// Validate checks -o and --team, and that there is a live cluster, before anything is read.
func (o *Options) Validate() error {
	if o.Offline {
		return cmdutil.UsageError("cluster events needs a live cluster: manifests have no events")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, _, c, err := o.Cluster(ctx)
	if err != nil {
		return err
	}
	evs, err := s.ListEvents(ctx, c.Namespace, v1alpha1.KindTenantCluster, c.Name)
	if err != nil {
		return err
	}
	doc := output.Doc{
		Header: []string{"LAST SEEN", "TYPE", "REASON", "COUNT", "MESSAGE"},
		Empty:  fmt.Sprintf("No events found for tenant cluster %s/%s.", c.Namespace, c.Name),
	}
	now := o.Now()
	for i := range evs {
		e := &evs[i]
		e.APIVersion, e.Kind = "v1", "Event"
		e.ManagedFields = nil
		age := clusterview.HumanDuration(now.Sub(store.EventTime(e)))
		doc.Items = append(doc.Items, output.Item{Object: e, Cells: []string{age, e.Type, e.Reason, strconv.Itoa(int(max(e.Count, 1))), e.Message}})
	}
	return o.Printer.Print(doc)
}
