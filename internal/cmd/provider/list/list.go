// Package list is `butleradm provider list`: the ProviderConfigs, their state, the clusters
// that use each and the teams that may.
package list

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Options are the flags of provider list.
type Options struct {
	Team string
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list [--team TEAM | -n NAMESPACE]",
		Aliases: []string{"ls"},
		Short:   "List ProviderConfigs with their state, the clusters using them and the teams that may",
		Long: `List ProviderConfigs in every namespace (platform ones live in butler-system, team-scoped
ones in their team's namespace), or in -n NAMESPACE, or those a team may use (--team: the
platform-scoped ones and the team's own).

Columns: PROVIDER, SCOPE, READY and VALIDATED (the controller's status; "-" when there is
none, as in manifests), AGE, CLUSTERS (TenantClusters in any namespace that reference it)
and TEAMS (who may use it: * for every team). -o wide adds the credentials Secret, the
network mode and the clusters' names. A default team from the config file does not filter
the list: only --team on the command line does.`,
		Example: `  butleradm provider list
  butleradm provider list --team payments -o wide
  butleradm provider list --manifests gitops/ -o name`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !providerutil.OnCommandLine(cmd, "team") {
				o.Team = "" // a default team from the config file does not filter an operator's list
			}
			return run(cmd.Context(), f, o)
		},
	}
	cmd.Flags().StringVar(&o.Team, "team", "", "Only the providers this team may use")
	return cmd
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	if err := f.ValidateOutput(); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	var pcs []v1alpha1.ProviderConfig
	ns := f.Options.Namespace
	if o.Team != "" {
		if ns != "" {
			return cmdutil.UsageError("pass --team or -n, not both")
		}
		t, err := lookup.Team(ctx, s, o.Team)
		if err != nil {
			return err
		}
		if pcs, err = lookup.VisibleProviders(ctx, s, t); err != nil {
			return err
		}
	} else if pcs, err = s.ListProviderConfigs(ctx, ns); err != nil {
		return err
	}

	out := f.IOStreams.Out
	switch f.Options.Output {
	case "json", "yaml":
		items := make([]any, 0, len(pcs))
		for i := range pcs {
			m, err := printers.Clean(providerutil.WithTypeMeta(pcs[i]))
			if err != nil {
				return err
			}
			items = append(items, m)
		}
		return printers.Print(out, f.Options.Output, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	case "name":
		for _, pc := range pcs {
			fmt.Fprintln(out, providerutil.ResourceName(pc.Name))
		}
		return nil
	}

	if len(pcs) == 0 {
		if ns != "" {
			f.Errorf("No ProviderConfigs found in namespace %s.\n", ns)
		} else {
			f.Errorf("No ProviderConfigs found.\n")
		}
		return nil
	}

	// Which clusters use each: every namespace, as the server's delete guard looks. A user
	// who may not list clusters everywhere still gets the list, with "?" for the counts.
	clusters, err := s.ListClusters(ctx, "")
	countable := true
	if err != nil {
		if !apierrors.IsForbidden(err) {
			return err
		}
		countable = false
		f.Errorf("warning: cannot list TenantClusters in every namespace, so CLUSTERS shows ?: %v\n", err)
	}
	wide := f.Options.Output == "wide"
	header := []string{"NAMESPACE", "NAME", "PROVIDER", "SCOPE", "READY", "VALIDATED", "AGE", "CLUSTERS", "TEAMS"}
	if wide {
		header = append(header, "CREDENTIALS", "NETWORK", "USED BY")
	}
	t := printers.NewTable(f.IOStreams.ColorEnabled(), header...)
	now := f.Now()
	for i := range pcs {
		pc := &pcs[i]
		users := providerutil.ClustersUsing(pc, clusters)
		count := strconv.Itoa(len(users))
		if !countable {
			count = "?"
		}
		row := []string{pc.Namespace, pc.Name, pc.Spec.Provider, pc.ScopeType(), providerutil.Ready(pc), providerutil.Validated(pc), providerutil.Age(pc, now), count, providerutil.Teams(pc)}
		if wide {
			secNS, secName := providerutil.SecretRef(pc)
			used := "-"
			if countable && len(users) > 0 {
				used = strings.Join(users, ",")
			}
			row = append(row, secNS+"/"+secName, providerutil.NetworkMode(pc), used)
		}
		t.Row(row...)
	}
	return t.Render(out)
}
