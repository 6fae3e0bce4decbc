// Package list is `butleradm provider list`: the ProviderConfigs, their state, the clusters
// that use each and the teams that may.
package list

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Spec is what provider list prints: the ProviderConfigs, a List in the structured
// formats (docs/output.md).
var Spec = output.Spec{Objects: true, List: true, Wide: true, Name: true}

// Options are the flags of provider list.
type Options struct {
	Team  string
	Print *output.Flags
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
			if err := o.Print.Validate(cmd); err != nil {
				return err
			}
			return run(cmd.Context(), f, o)
		},
	}
	cmd.Flags().StringVar(&o.Team, "team", "", "Only the providers this team may use")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
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

	empty := "No ProviderConfigs found."
	if ns != "" {
		empty = "No ProviderConfigs found in namespace " + ns + "."
	}
	doc := output.Doc{
		Header:     []string{"NAMESPACE", "NAME", "PROVIDER", "SCOPE", "READY", "VALIDATED", "AGE", "CLUSTERS", "TEAMS"},
		WideHeader: []string{"CREDENTIALS", "NETWORK", "USED BY"},
		// On a narrow terminal: the age, then whether validated (READY says whether usable;
		// provider get has both), before any name is cut.
		Drop:  []string{"AGE", "VALIDATED"},
		Empty: empty,
	}
	for i := range pcs {
		doc.Items = append(doc.Items, output.Item{Object: providerutil.WithTypeMeta(pcs[i])})
	}
	if o.Print.Human() && len(pcs) > 0 {
		if err := cells(ctx, f, s, pcs, doc.Items); err != nil {
			return err
		}
	}
	return o.Print.Printer(f.IOStreams).Print(doc)
}

// cells fills the table's cells of each item. Which clusters use each: every namespace, as
// the server's delete guard looks. A user who may not list clusters everywhere still gets
// the list, with "?" for the counts.
func cells(ctx context.Context, f *factory.Factory, s store.Store, pcs []v1alpha1.ProviderConfig, items []output.Item) error {
	clusters, err := s.ListClusters(ctx, "")
	countable := true
	if err != nil {
		if !apierrors.IsForbidden(err) {
			return err
		}
		countable = false
		f.Errorf("warning: cannot list TenantClusters in every namespace, so CLUSTERS shows ?: %v\n", err)
	}
	now := f.Now()
	for i := range pcs {
		pc := &pcs[i]
		users := providerutil.ClustersUsing(pc, clusters)
		count := strconv.Itoa(len(users))
		if !countable {
			count = "?"
		}
		items[i].Cells = []string{pc.Namespace, pc.Name, pc.Spec.Provider, pc.ScopeType(), providerutil.Ready(pc), providerutil.Validated(pc), providerutil.Age(pc, now), count, providerutil.Teams(pc)}
		secNS, secName := providerutil.SecretRef(pc)
		used := "-"
		if countable && len(users) > 0 {
			used = strings.Join(users, ",")
		}
		items[i].WideCells = []string{secNS + "/" + secName, providerutil.NetworkMode(pc), used}
	}
	return nil
}
