// Package plan is `butlerctl upgrade plan`: every cluster behind its team's default
// Kubernetes version or outside the team's allowed versions, with the next supported step.
package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what upgrade plan reads: the teams and their clusters.
type Store = store.Reader

var _ Store = store.Store(nil)

// Options are the flags of upgrade plan.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team        string
	Environment string
}

// Spec: a table for people; the clusters for programs, or with --view the rows.
var Spec = output.Spec{Objects: true, View: true, List: true, Name: true}

// Row is one cluster that needs attention, the command's view.
type Row struct {
	Team        string `json:"team"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Environment string `json:"environment,omitempty"`
	policy.VersionReview
	Reason string `json:"reason"`
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "plan [--team TEAM] [--environment ENV]",
		Short: "List clusters behind their team's default Kubernetes version or outside its allowed versions",
		Long: `List every tenant cluster whose Kubernetes version is behind the default a new cluster
of its team and environment would get (the environment's clusterDefaults, else the team's),
or is not among the team's allowedKubernetesVersions. NEXT is the next supported step
towards the default (one minor version at a time, through versions the team allows;
docs/rules.md §6.1), for butlerctl cluster upgrade; - when there is none.

Without --team, every team that can be read. Clusters already up to date are not listed;
an empty list says so on stderr and exits 0.`,
		Example: `  butlerctl upgrade plan --team payments
  butlerctl upgrade plan --team payments --environment prod -o json --view
  butlerctl upgrade plan --manifests examples/payments`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamFilter("clusters"))
	cmd.Flags().StringVar(&o.Environment, "environment", "", "Only clusters in this environment")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	var teams []v1alpha1.Team
	if o.Team != "" {
		t, err := lookup.TeamEnvironment(ctx, s, o.Team, o.Environment)
		if err != nil {
			return err
		}
		teams = []v1alpha1.Team{*t}
	} else if teams, err = s.ListTeams(ctx); err != nil {
		return err
	}
	doc := output.Doc{
		Header: []string{"TEAM", "NAME", "ENVIRONMENT", "VERSION", "DEFAULT", "NEXT", "REASON"},
		Empty:  "No tenant clusters need an upgrade.",
	}
	for i := range teams {
		t := &teams[i]
		clusters, err := s.ListClusters(ctx, t.TeamNamespace())
		if err != nil {
			return err
		}
		for j := range clusters {
			c := &clusters[j]
			if o.Environment != "" && c.Environment() != o.Environment {
				continue
			}
			if row, ok := review(t, c); ok {
				doc.Items = append(doc.Items, output.Item{Object: c, View: row, Cells: cells(row)})
			}
		}
	}
	return o.Printer.Print(doc)
}

// review is the cluster's row, ok when it needs attention. A version that cannot be read
// (the cluster's, or a malformed default) is itself a reason.
func review(t *v1alpha1.Team, c *v1alpha1.TenantCluster) (Row, bool) {
	row := Row{Team: t.Name, Namespace: c.Namespace, Name: c.Name, Environment: c.Environment()}
	var allowed []string
	if lim := t.Spec.ResourceLimits; lim != nil {
		allowed = lim.AllowedKubernetesVersions
	}
	def := ""
	d, err := policy.ResolveDefaults(t, c.Environment(), policy.Explicit{})
	if err == nil {
		def = d.KubernetesVersion
	}
	r, rerr := policy.ReviewVersion(c.Spec.KubernetesVersion, def, allowed)
	if err != nil || rerr != nil {
		row.Current, row.Reason = c.Spec.KubernetesVersion, fmt.Sprintf("cannot compare: %v", firstErr(rerr, err))
		return row, true
	}
	row.VersionReview = r
	var reasons []string
	if r.Behind {
		reasons = append(reasons, "behind the default")
	}
	if r.NotAllowed {
		reasons = append(reasons, "not an allowed version")
	}
	row.Reason = strings.Join(reasons, ", ")
	return row, r.NeedsAttention()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func cells(r Row) []string {
	return []string{r.Team, r.Name, dash(r.Environment), r.Current, dash(r.Default), dash(r.Next), r.Reason}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
