// Package shared is what the env commands share.
package shared

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// EnvOptions are what a command that changes one environment of a team acts on (env
// create, update, delete), embedded in its Options: the environment's NAME, its team
// (--team, required) and the command's dependencies.
type EnvOptions[S store.Reader] struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[S]

	Name string
	Team string
}

// TeamFlag registers --team, with what it means to the command.
func (o *EnvOptions[S]) TeamFlag(cmd *cobra.Command, use cmdutil.TeamUse) {
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, use)
}

// Validate checks -o, the environment's name (a label value) and --team before anything
// is read.
func (o *EnvOptions[S]) ValidateShared() error {
	if err := policy.ValidateEnvironmentName(o.Name); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	return cmdutil.RequireFlag("team", o.Team)
}

// TeamClusters opens the store and reads the team and its clusters; the store is returned
// for what the command does next.
func (o *EnvOptions[S]) TeamClusters(ctx context.Context) (S, *v1alpha1.Team, []v1alpha1.TenantCluster, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return s, nil, nil, err
	}
	team, clusters, err := lookup.TeamClusters(ctx, s, o.Team)
	return s, team, clusters, err
}
