package shared

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ClusterOptions are what a command on one cluster of a team acts on (`cluster describe
// NAME --team TEAM`, events, extend, scale, upgrade, ...), embedded in its Options: the
// cluster's name, its team (--team, required) and the command's dependencies.
type ClusterOptions[S store.Reader] struct {
	// Deps are the streams, the store, the clock and the printer, from Complete.
	factory.Deps[S]

	Name string
	Team string
	// Offline is whether --manifests was given, for a command that needs a live cluster.
	Offline bool
}

// Complete takes from the Factory what run needs, and whether it works on manifests; it
// reads nothing yet.
func (o *ClusterOptions[S]) CompleteShared(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Offline = f.Offline()
	return nil
}

// TeamFlag is --team, the team that owns the cluster.
func (o *ClusterOptions[S]) TeamFlag(cmd *cobra.Command) {
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamOwner)
}

// Validate checks -o and that --team is given, before anything is read.
func (o *ClusterOptions[S]) ValidateShared() error {
	if o.Team == "" {
		return cmdutil.UsageError("--team is required")
	}
	return nil
}

// Cluster opens the store and reads the team and its cluster; the store is returned for
// what the command reads next.
func (o *ClusterOptions[S]) Cluster(ctx context.Context) (S, *v1alpha1.Team, *v1alpha1.TenantCluster, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return s, nil, nil, err
	}
	team, err := lookup.Team(ctx, s, o.Team)
	if err != nil {
		return s, nil, nil, err
	}
	c, err := lookup.Cluster(ctx, s, team, o.Name)
	return s, team, c, err
}

// TeamAndActor opens the store and reads the team and who asks: what a command that
// changes one of the team's clusters starts with. The store is returned for the rest.
func (o *ClusterOptions[S]) TeamAndActor(ctx context.Context) (S, *v1alpha1.Team, lookup.Actor, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return s, nil, lookup.Actor{}, err
	}
	team, actor, err := lookup.TeamAndActor(ctx, s, o.Team)
	return s, team, actor, err
}

// OperatedCluster is TeamAndActor and the cluster named, once the caller may verb it
// (operator or admin in its environment, lookup.RequireOperator): what a command that
// changes one cluster reads before it judges the change.
func (o *ClusterOptions[S]) OperatedCluster(ctx context.Context, verb string) (S, *v1alpha1.Team, lookup.Actor, *v1alpha1.TenantCluster, error) {
	s, team, actor, err := o.TeamAndActor(ctx)
	if err != nil {
		return s, nil, actor, nil, err
	}
	cur, err := lookup.Cluster(ctx, s, team, o.Name)
	if err != nil {
		return s, nil, actor, nil, err
	}
	if _, err := lookup.RequireOperator(team, cur, actor, verb); err != nil {
		return s, nil, actor, nil, err
	}
	return s, team, actor, cur, nil
}
