// Package get is `team get`: limits, usage, utilisation, quota status and environments.
package get

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/internal/textwrap"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is team get's computed view (--view, docs/output.md).
type View struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
	Namespace   string `json:"namespace"`
	// Status is the team's one quota status (policy.StandingOfTeam): the worst of its quota
	// lines and every environment's status, the one team list shows.
	Status string `json:"status"`
	// StatusSetBy is the limit that set Status, with its figures (policy.StandingOfTeam).
	StatusSetBy  string               `json:"statusSetBy,omitempty"`
	Quota        policy.QuotaReport   `json:"quota"`
	Environments []EnvironmentSummary `json:"environments"`
}

// EnvironmentSummary is one environment's clusters and caps.
type EnvironmentSummary struct {
	Name                 string `json:"name"`
	Description          string `json:"description,omitempty"`
	Clusters             int    `json:"clusters"`
	MaxClusters          int32  `json:"maxClusters,omitempty"`
	MaxClustersPerMember int32  `json:"maxClustersPerMember,omitempty"`
	// Status, OverMembers and Problems: how it stands against its caps.
	policy.EnvironmentStanding
}

// Spec is what team get prints: the Team, or with --view its usage and quota (View).
var Spec = output.Spec{Objects: true, View: true, Wide: true, Name: true}

// Store is what team get reads: the team and its clusters.
type Store = store.Reader

// Options are the flags and arguments of team get.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Name string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get TEAM",
		Short: "Show a team's limits, usage, quota status and environments",
		Example: `  butlerctl team get payments --manifests examples/payments
  butlerctl team get payments -o json --view`,
	}
	o.Print = f.NamedCommand(cmd, "a TEAM name", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	return cmd
}

// Summaries lists each environment of the team with its cluster count and caps.
func Summaries(t *v1alpha1.Team, clusters []v1alpha1.TenantCluster) []EnvironmentSummary {
	out := make([]EnvironmentSummary, 0, len(t.Spec.Environments))
	for _, e := range t.Spec.Environments {
		u := policy.EnvironmentUsageOf(t, e.Name, clusters)
		out = append(out, EnvironmentSummary{Name: e.Name, Description: e.Description, Clusters: u.Clusters,
			MaxClusters: u.MaxClusters, MaxClustersPerMember: u.MaxClustersPerMember, EnvironmentStanding: policy.StandingOf(u, clusters)})
	}
	return out
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, o.Name)
	if err != nil {
		return err
	}
	v := View{Name: t.Name, DisplayName: t.Spec.DisplayName, Description: t.Spec.Description,
		Namespace: t.TeamNamespace(), Quota: policy.TeamQuota(t, clusters), Environments: Summaries(t, clusters)}
	standing := policy.StandingOfTeam(t, clusters)
	v.Status, v.StatusSetBy = standing.Status, standing.SetBy
	defer func() {
		for _, env := range v.Environments {
			for _, p := range env.Problems {
				fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", p)
			}
		}
	}()
	color, width := o.IO.ColorEnabled(), o.IO.Width()
	return o.Printer.Print(output.Doc{
		One:   true,
		Items: []output.Item{{Object: teamview.Object(t), View: v}},
		Text:  func(w io.Writer) error { return describe(w, v, color, width) },
	})
}

// describe is the human output: the team, its quota lines, then its environments, each
// fitted to width (0: a pipe, in full).
func describe(out io.Writer, v View, color bool, width int) error {
	st := tables.NewStyles(color)
	// A long value wraps under its column rather than past the terminal's edge.
	field := func(label, value string) {
		fmt.Fprintln(out, textwrap.Indent(value, fmt.Sprintf("%-14s", label), strings.Repeat(" ", 14), width))
	}
	field("Team:", inert.Text(v.Name))
	if v.DisplayName != "" {
		field("Display name:", inert.Text(v.DisplayName))
	}
	if v.Description != "" {
		field("Description:", inert.Text(v.Description))
	}
	field("Namespace:", inert.Text(v.Namespace))
	fmt.Fprintf(out, "Quota:        %s\n", st.Status(v.Status))
	if v.StatusSetBy != "" {
		field("Set by:", inert.Text(v.StatusSetBy))
	}
	fmt.Fprintln(out)
	q := tables.NewTable(color, "RESOURCE", "USED", "LIMIT", "UTILISATION", "STATUS")
	q.Width = width // fit the terminal (tables.Table.fit)
	for _, l := range v.Quota.Lines {
		pct := "-"
		if l.Utilization != nil {
			pct = strconv.Itoa(*l.Utilization) + "%"
		}
		q.Row(l.Resource, l.Used, tables.Dash(l.Limit), pct, st.Status(tables.Dash(l.Status)))
	}
	if err := q.Render(out); err != nil {
		return err
	}
	if len(v.Environments) == 0 {
		return nil
	}
	fmt.Fprintln(out)
	e := tables.NewTable(color, "ENVIRONMENT", "CLUSTERS", "MAX CLUSTERS", "MAX PER MEMBER", "STATUS", "DESCRIPTION")
	// Too narrow for every column even cut (60 columns), the description goes.
	e.Width, e.Last = width, []string{"DESCRIPTION"}
	for _, env := range v.Environments {
		e.Row(env.Name, strconv.Itoa(env.Clusters), tables.Cap(env.MaxClusters), tables.Cap(env.MaxClustersPerMember), st.Status(env.Status), env.Description)
	}
	return e.Render(out)
}
