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
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Spec is what provider list prints: the ProviderConfigs, a List in the structured
// formats (docs/output.md).
var Spec = output.Spec{Objects: true, List: true, Wide: true, Name: true}

// Store is what provider list reads: the providers, a team and the clusters.
type Store = store.Reader

// Options are what provider list runs with: its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team string
	// Namespace is -n: only the ProviderConfigs there.
	Namespace string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
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
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamMeaning("Only the providers this team may use"))
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
// A default team from the config file does not filter an operator's list: only --team on
// the command line does.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, _ []string) error {
	o.Namespace = f.Options.Namespace
	if !providerutil.OnCommandLine(cmd, "team") {
		o.Team = ""
	}
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.Team != "" && o.Namespace != "" {
		return cmdutil.UsageError("pass --team or -n, not both")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	var pcs []v1alpha1.ProviderConfig
	ns := o.Namespace
	if o.Team != "" {
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
		if err := cells(ctx, o, s, pcs, doc.Items); err != nil {
			return err
		}
	}
	return o.Printer.Print(doc)
}

// cells fills the table's cells of each item. Which clusters use each: every namespace, as
// the server's delete guard looks. A user who may not list clusters everywhere still gets
// the list, with "?" for the counts.
func cells(ctx context.Context, o *Options, s store.Reader, pcs []v1alpha1.ProviderConfig, items []output.Item) error {
	clusters, err := s.ListClusters(ctx, "")
	countable := true
	if err != nil {
		if !apierrors.IsForbidden(err) {
			return err
		}
		countable = false
		fmt.Fprintf(o.IO.ErrOut, "warning: cannot list TenantClusters in every namespace, so CLUSTERS shows ?: %v\n", err)
	}
	now := o.Now()
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
