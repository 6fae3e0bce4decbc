// Package list is `team list`.
package list

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Row is one team in the computed view (--view, docs/output.md).
type Row struct {
	Name         string `json:"name"`
	DisplayName  string `json:"displayName,omitempty"`
	Namespace    string `json:"namespace"`
	Environments int    `json:"environments"`
	Clusters     int    `json:"clusters"`
	Quota        string `json:"quotaStatus"`
	// QuotaSetBy is the limit that set Quota, with its figures (policy.StandingOfTeam).
	QuotaSetBy string `json:"quotaSetBy,omitempty"`
}

// Spec is what team list prints: the Teams, or with --view a Row each.
var Spec = output.Spec{Objects: true, View: true, List: true, Wide: true, Name: true}

// Store is what team list reads: the teams and their clusters.
type Store = store.Reader

// Options are the flags of team list.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List teams with their clusters and quota status",
		Example: `  butlerctl team list --manifests examples/payments
  butlerctl team list -o json
  butlerctl team list -o json --view`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return err
	}
	st := tables.NewStyles(o.IO.ColorEnabled())
	d := output.Doc{
		Header:     []string{"NAME", "NAMESPACE", "ENVIRONMENTS", "CLUSTERS", "QUOTA", "SET BY"},
		WideHeader: []string{"DISPLAY NAME"},
		Empty:      "No teams found.",
	}
	for i := range teams {
		t := &teams[i]
		clusters, err := s.ListClusters(ctx, t.TeamNamespace())
		if err != nil {
			return err
		}
		r := Row{
			Name: t.Name, DisplayName: t.Spec.DisplayName, Namespace: t.TeamNamespace(),
			Environments: len(t.Spec.Environments), Clusters: len(clusters),
		}
		standing := policy.StandingOfTeam(t, clusters)
		r.Quota, r.QuotaSetBy = standing.Status, standing.SetBy
		d.Items = append(d.Items, output.Item{
			Object:    teamview.Object(t),
			View:      r,
			Cells:     []string{r.Name, r.Namespace, strconv.Itoa(r.Environments), strconv.Itoa(r.Clusters), st.Status(r.Quota), tables.Dash(r.QuotaSetBy)},
			WideCells: []string{r.DisplayName},
		})
	}
	return o.Printer.Print(d)
}
