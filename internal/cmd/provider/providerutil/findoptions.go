package providerutil

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// FindOptions are what a command on one ProviderConfig by name acts on (provider get,
// delete, rotate-credentials), embedded in its Options: the name, where to look first
// (--team, -n) and the command's dependencies.
type FindOptions[S store.Reader] struct {
	// Deps are the streams, the store, the clock and the printer, from Complete.
	factory.Deps[S]

	Name string
	Team string
	// Namespace is -n: where to look first.
	Namespace string
}

// TeamFlag registers --team: the team's namespace first, then butler-system.
func (o *FindOptions[S]) TeamFlag(cmd *cobra.Command) {
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamMeaning("Look in this team's namespace, then in butler-system"))
}

// Complete takes from the Factory what run needs, -n with it; it reads nothing yet.
func (o *FindOptions[S]) CompleteShared(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Namespace = f.Options.Namespace
	return nil
}

// Provider opens the store and finds the ProviderConfig as Find does; the store is
// returned for what the command does next.
func (o *FindOptions[S]) Provider(ctx context.Context) (S, *v1alpha1.ProviderConfig, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return s, nil, err
	}
	pc, err := Find(ctx, s, o.Name, o.Namespace, o.Team)
	return s, pc, err
}
