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
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Row is one environment in -o json|yaml.
type Row struct {
	Name                 string `json:"name"`
	Description          string `json:"description,omitempty"`
	ClusterCount         int    `json:"clusterCount"`
	MaxClusters          int32  `json:"maxClusters,omitempty"`
	MaxClustersPerMember int32  `json:"maxClustersPerMember,omitempty"`
	Role                 string `json:"role,omitempty"`
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	var team string
	cmd := &cobra.Command{
		Use:     "list --team TEAM",
		Aliases: []string{"ls"},
		Short:   "List a team's environments: clusters against caps, and your role",
		Example: `  butlerctl env list --team payments --manifests examples/payments --as bob@example.com`,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), f, team)
		},
	}
	cmd.Flags().StringVar(&team, "team", "", "Team (required)")
	return cmd
}

func run(ctx context.Context, f *factory.Factory, team string) error {
	if err := f.ValidateOutput("table", "wide", "json", "yaml", "name"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, team)
	if err != nil {
		return err
	}
	// Your role needs an identity; without one (offline, no --as) the column is left out.
	actor, idErr := lookup.WhoAmI(ctx, s)
	rows := make([]Row, 0, len(t.Spec.Environments))
	for _, e := range t.Spec.Environments {
		u := policy.EnvironmentUsageOf(t, e.Name, clusters)
		r := Row{Name: e.Name, Description: e.Description, ClusterCount: u.Clusters, MaxClusters: u.MaxClusters, MaxClustersPerMember: u.MaxClustersPerMember}
		if idErr == nil {
			r.Role = policy.EnvironmentRole(t, e.Name, actor.Identity, actor.PlatformAdmin).Role.String()
		}
		rows = append(rows, r)
	}
	out := f.IOStreams.Out
	switch f.Options.Output {
	case "json", "yaml":
		return printers.Print(out, f.Options.Output, rows)
	case "name":
		for _, r := range rows {
			fmt.Fprintln(out, r.Name)
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintf(f.IOStreams.ErrOut, "Team %q defines no environments.\n", t.Name)
		return nil
	}
	header := []string{"NAME", "CLUSTERS", "MAX CLUSTERS", "MAX PER MEMBER"}
	if idErr == nil {
		header = append(header, "YOUR ROLE")
	}
	if f.Options.Output == "wide" {
		header = append(header, "DESCRIPTION")
	}
	tb := printers.NewTable(f.IOStreams.ColorEnabled(), header...)
	for _, r := range rows {
		row := []string{r.Name, strconv.Itoa(r.ClusterCount), printers.Cap(r.MaxClusters), printers.Cap(r.MaxClustersPerMember)}
		if idErr == nil {
			row = append(row, r.Role)
		}
		if f.Options.Output == "wide" {
			row = append(row, r.Description)
		}
		tb.Row(row...)
	}
	return tb.Render(out)
}
