// Package list is `env list`: clusters against each cap, and your role.
package list

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Row is one environment in the computed view (docs/output.md): an environment is part of
// its Team, not an API object of its own.
type Row struct {
	Name                 string `json:"name"`
	Description          string `json:"description,omitempty"`
	ClusterCount         int    `json:"clusterCount"`
	MaxClusters          int32  `json:"maxClusters,omitempty"`
	MaxClustersPerMember int32  `json:"maxClustersPerMember,omitempty"`
	Role                 string `json:"role,omitempty"`
	// Status and Problems: how the environment stands against its caps (policy.StandingOf).
	Status   string   `json:"status"`
	Problems []string `json:"problems,omitempty"`
}

// Spec is what env list prints: a Row each; -o name prints the environments' names.
var Spec = output.Spec{List: true, Wide: true, Name: true}

// Store is what env list reads: the team and its clusters.
type Store = store.Reader

// Options are the flags of env list.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list --team TEAM",
		Aliases: []string{"ls"},
		Short:   "List a team's environments: clusters against caps, and your role",
		Example: `  butlerctl env list --team payments --manifests examples/payments --as bob@example.com
  butlerctl env list --team payments --sort-by .clusterCount -o custom-columns=NAME:.name,CLUSTERS:.clusterCount`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamRequired)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, o.Team)
	if err != nil {
		return err
	}
	// Your role needs an identity; without one (offline, no --as) the column is left out.
	actor, idErr := lookup.WhoAmI(ctx, s)
	d := output.Doc{
		Header:     []string{"NAME", "CLUSTERS", "MAX CLUSTERS", "MAX PER MEMBER", "STATUS"},
		WideHeader: []string{"DESCRIPTION"},
		Empty:      fmt.Sprintf("Team %q defines no environments.", t.Name),
	}
	if idErr == nil {
		d.Header = append(d.Header, "YOUR ROLE")
	}
	var problems []string
	for _, e := range t.Spec.Environments {
		u := policy.EnvironmentUsageOf(t, e.Name, clusters)
		st := policy.StandingOf(u, clusters)
		r := Row{Name: e.Name, Description: e.Description, ClusterCount: u.Clusters, MaxClusters: u.MaxClusters, MaxClustersPerMember: u.MaxClustersPerMember,
			Status: st.Status, Problems: st.Problems}
		problems = append(problems, st.Problems...)
		cells := []string{r.Name, strconv.Itoa(r.ClusterCount), tables.Cap(r.MaxClusters), tables.Cap(r.MaxClustersPerMember), r.Status}
		if idErr == nil {
			r.Role = policy.EnvironmentRole(t, e.Name, actor.Identity, actor.PlatformAdmin).Role.String()
			cells = append(cells, r.Role)
		}
		d.Items = append(d.Items, output.Item{View: r, Name: r.Name, Cells: cells, WideCells: []string{r.Description}})
	}
	if err := o.Printer.Print(d); err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", p)
	}
	return nil
}
