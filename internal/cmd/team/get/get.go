// Package get is `team get`: limits, usage, utilisation, quota status and environments.
package get

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is team get in -o json|yaml.
type View struct {
	Name         string               `json:"name"`
	DisplayName  string               `json:"displayName,omitempty"`
	Description  string               `json:"description,omitempty"`
	Namespace    string               `json:"namespace"`
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
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "get TEAM",
		Short:   "Show a team's limits, usage, quota status and environments",
		Example: `  butlerctl team get payments --manifests examples/payments`,
		Args:    cmdutil.ExactArgs(1, "a TEAM name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), f, args[0])
		},
	}
}

// Summaries lists each environment of the team with its cluster count and caps.
func Summaries(t *v1alpha1.Team, clusters []v1alpha1.TenantCluster) []EnvironmentSummary {
	out := make([]EnvironmentSummary, 0, len(t.Spec.Environments))
	for _, e := range t.Spec.Environments {
		u := policy.EnvironmentUsageOf(t, e.Name, clusters)
		out = append(out, EnvironmentSummary{Name: e.Name, Description: e.Description, Clusters: u.Clusters,
			MaxClusters: u.MaxClusters, MaxClustersPerMember: u.MaxClustersPerMember})
	}
	return out
}

func run(ctx context.Context, f *factory.Factory, name string) error {
	if err := f.ValidateOutput("table", "wide", "json", "yaml", "name"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, name)
	if err != nil {
		return err
	}
	v := View{Name: t.Name, DisplayName: t.Spec.DisplayName, Description: t.Spec.Description,
		Namespace: t.TeamNamespace(), Quota: policy.TeamQuota(t, clusters), Environments: Summaries(t, clusters)}
	out := f.IOStreams.Out
	switch f.Options.Output {
	case "json", "yaml":
		return printers.Print(out, f.Options.Output, v)
	case "name":
		fmt.Fprintf(out, "team.butler.butlerlabs.dev/%s\n", t.Name)
		return nil
	}
	color := f.IOStreams.ColorEnabled()
	st := printers.NewStyles(color)
	fmt.Fprintf(out, "Team:         %s\n", t.Name)
	if v.DisplayName != "" {
		fmt.Fprintf(out, "Display name: %s\n", v.DisplayName)
	}
	if v.Description != "" {
		fmt.Fprintf(out, "Description:  %s\n", v.Description)
	}
	fmt.Fprintf(out, "Namespace:    %s\n", v.Namespace)
	fmt.Fprintf(out, "Quota:        %s\n\n", st.Status(v.Quota.Status))
	q := printers.NewTable(color, "RESOURCE", "USED", "LIMIT", "UTILISATION", "STATUS")
	for _, l := range v.Quota.Lines {
		pct := "-"
		if l.Utilization != nil {
			pct = strconv.Itoa(*l.Utilization) + "%"
		}
		q.Row(l.Resource, l.Used, printers.Dash(l.Limit), pct, st.Status(printers.Dash(l.Status)))
	}
	if err := q.Render(out); err != nil {
		return err
	}
	if len(v.Environments) > 0 {
		fmt.Fprintln(out)
		e := printers.NewTable(color, "ENVIRONMENT", "CLUSTERS", "MAX CLUSTERS", "MAX PER MEMBER", "DESCRIPTION")
		for _, env := range v.Environments {
			e.Row(env.Name, strconv.Itoa(env.Clusters), printers.Cap(env.MaxClusters), printers.Cap(env.MaxClustersPerMember), env.Description)
		}
		return e.Render(out)
	}
	return nil
}
