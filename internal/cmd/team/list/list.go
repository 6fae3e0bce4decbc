// Package list is `team list`.
package list

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Row is one team in -o json|yaml.
type Row struct {
	Name         string `json:"name"`
	DisplayName  string `json:"displayName,omitempty"`
	Namespace    string `json:"namespace"`
	Environments int    `json:"environments"`
	Clusters     int    `json:"clusters"`
	Quota        string `json:"quotaStatus"`
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List teams with their clusters and quota status",
		Example: `  butlerctl team list --manifests examples/payments
  butlerctl team list -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), f) },
	}
}

func run(ctx context.Context, f *factory.Factory) error {
	if err := f.ValidateOutput(); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return err
	}
	rows := make([]Row, 0, len(teams))
	for i := range teams {
		t := &teams[i]
		clusters, err := s.ListClusters(ctx, t.TeamNamespace())
		if err != nil {
			return err
		}
		rows = append(rows, Row{
			Name: t.Name, DisplayName: t.Spec.DisplayName, Namespace: t.TeamNamespace(),
			Environments: len(t.Spec.Environments), Clusters: len(clusters),
			Quota: policy.TeamQuota(t, clusters).Status,
		})
	}
	out := f.IOStreams.Out
	switch f.Options.Output {
	case "json", "yaml":
		return printers.Print(out, f.Options.Output, rows)
	case "name":
		for _, r := range rows {
			fmt.Fprintf(out, "team.butler.butlerlabs.dev/%s\n", r.Name)
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(f.IOStreams.ErrOut, "No teams found.")
		return nil
	}
	st := printers.NewStyles(f.IOStreams.ColorEnabled())
	header := []string{"NAME", "NAMESPACE", "ENVIRONMENTS", "CLUSTERS", "QUOTA"}
	if f.Options.Output == "wide" {
		header = append(header, "DISPLAY NAME")
	}
	tb := printers.NewTable(f.IOStreams.ColorEnabled(), header...)
	for _, r := range rows {
		row := []string{r.Name, r.Namespace, strconv.Itoa(r.Environments), strconv.Itoa(r.Clusters), st.Status(r.Quota)}
		if f.Options.Output == "wide" {
			row = append(row, r.DisplayName)
		}
		tb.Row(row...)
	}
	return tb.Render(out)
}
