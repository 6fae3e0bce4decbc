// Package addonutil is what the addon commands share: finding the team, the cluster and
// its TenantAddons.
package addonutil

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Store is what the addon commands read through Resolve: the team, who asks and the
// cluster (store.Reader), and the cluster's TenantAddons.
type Store interface {
	store.Reader
	ListAddons(ctx context.Context, namespace string) ([]v1alpha1.TenantAddon, error)
}

// Target is a cluster with its team and its TenantAddons.
type Target struct {
	// Store is what the target was read from: who asks is read from it too.
	Store   store.Reader
	Team    *v1alpha1.Team
	Cluster *v1alpha1.TenantCluster
	// Installed are the TenantAddons naming the cluster, by name.
	Installed []v1alpha1.TenantAddon
}

// TargetOptions are what an addon command acts on, embedded in its Options: the cluster
// (the CLUSTER argument), its team (--team, required) and the command's dependencies.
type TargetOptions[S Store] struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[S]

	Cluster string
	Team    string
}

// TeamFlag is --team, the team that owns the cluster.
func (o *TargetOptions[S]) TeamFlag(cmd *cobra.Command) {
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamOwner)
}

// Validate checks -o and --team before anything is read.
func (o *TargetOptions[S]) ValidateShared() error {
	return RequireTeam(o.Team)
}

// Target opens the store and reads the team, the cluster and its TenantAddons; the store
// is returned for what the command writes.
func (o *TargetOptions[S]) Target(ctx context.Context) (S, *Target, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return s, nil, err
	}
	t, err := Resolve(ctx, s, o.Team, o.Cluster)
	return s, t, err
}

// RequireTeam is the addon commands' check of --team, before anything is read.
func RequireTeam(team string) error {
	if team == "" {
		return cmdutil.UsageError("--team is required")
	}
	return nil
}

// Resolve reads the team, the cluster and the cluster's TenantAddons from the store.
func Resolve(ctx context.Context, s Store, team, cluster string) (*Target, error) {
	t, err := lookup.Team(ctx, s, team)
	if err != nil {
		return nil, err
	}
	c, err := lookup.Cluster(ctx, s, t, cluster)
	if err != nil {
		return nil, err
	}
	all, err := s.ListAddons(ctx, c.Namespace)
	if err != nil {
		return nil, err
	}
	tg := &Target{Store: s, Team: t, Cluster: c}
	for _, a := range all {
		if a.Spec.ClusterRef.Name == c.Name {
			tg.Installed = append(tg.Installed, a)
		}
	}
	return tg, nil
}

// Find is the TenantAddon of the named addon on the cluster (case-insensitive), or nil.
func (t *Target) Find(addon string) *v1alpha1.TenantAddon {
	for i := range t.Installed {
		if strings.EqualFold(t.Installed[i].Spec.Addon, addon) {
			return &t.Installed[i]
		}
	}
	return nil
}

// RequireOperator checks that the caller may change the cluster's addons: operator or
// admin in its environment, as for scaling it (docs/rules.md §3.3).
func (t *Target) RequireOperator(ctx context.Context) error {
	actor, err := lookup.WhoAmI(ctx, t.Store)
	if err != nil {
		return err
	}
	_, err = lookup.RequireOperator(t.Team, t.Cluster, actor, "change")
	return err
}

// ResourceName is the kubectl-style name of a TenantAddon.
func ResourceName(name string) string { return "tenantaddon.butler.butlerlabs.dev/" + name }
