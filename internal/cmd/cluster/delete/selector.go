package delete

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Validate checks the flags and arguments before anything is read: a NAME or -l, --team,
// and --yes with -l.
func (o *Options) Validate() error {
	switch {
	case o.Team == "":
		return cmdutil.UsageError("--team is required")
	case o.Name != "" && o.Selector != "":
		return cmdutil.UsageError("pass a cluster NAME or -l SELECTOR, not both")
	case o.Name == "" && o.Selector == "":
		return cmdutil.UsageError("cluster delete requires a cluster NAME or -l SELECTOR")
	case o.Selector != "" && !o.Yes:
		return cmdutil.UsageError("deleting by selector needs --yes")
	}
	if o.Selector != "" {
		if _, err := labels.Parse(o.Selector); err != nil {
			return cmdutil.UsageError("--selector: %v", err)
		}
	}
	return nil
}

// deleteSelected deletes the team's clusters that match -l, once the caller may delete
// each (nothing is deleted when one is refused). None matching is no error, as kubectl.
func deleteSelected(ctx context.Context, o *Options, s Store, team *v1alpha1.Team, actor lookup.Actor) error {
	sel, _ := labels.Parse(o.Selector)
	all, err := s.ListClusters(ctx, team.TeamNamespace())
	if err != nil {
		return err
	}
	var matched []v1alpha1.TenantCluster
	for _, c := range all {
		if sel.Matches(labels.Set(c.Labels)) {
			if _, err := lookup.RequireOperator(team, &c, actor, "delete"); err != nil {
				return err
			}
			matched = append(matched, c)
		}
	}
	if len(matched) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No tenant clusters of team %q match %s.\n", team.Name, o.Selector)
		return nil
	}
	var lines []string
	d := output.Doc{}
	for i := range matched {
		c := &matched[i]
		res, err := s.DeleteCluster(ctx, c)
		if err != nil {
			return err
		}
		d.Items = append(d.Items, output.Item{Object: clusterview.WithTypeMeta(*c)})
		line := o.Printer.DoneLine("tenantcluster.butler.butlerlabs.dev/"+c.Name+" deleted", store.Where(res, s))
		lines = append(lines, line)
	}
	d.Text = func(w io.Writer) error {
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}
	return o.Printer.Print(d)
}
