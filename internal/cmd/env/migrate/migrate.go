// Package migrate is `butleradm env migrate`: move existing TenantClusters into one of
// their team's environments, safely and in bulk (docs/rules.md §10).
//
// The command plans first (pkg/policy PlanMigration: which clusters move and from where,
// which are skipped and why, and the target environment's caps), prints the plan, asks for
// confirmation, then migrates the clusters a few at a time. Each cluster is one patch that
// sets the environment label and the migration-operation annotation, carrying the
// resourceVersion the plan was made from, then one patch that removes the annotation
// (store.Migrator). A cluster changed meanwhile answers Conflict: it is read again and
// planned again, never overwritten. A failed cluster does not stop the others.
//
// Exit codes: 0 when every planned cluster was migrated (or there was nothing to do); 4
// when the plan goes past the environment's caps without --allow-over-quota (nothing is
// changed), when the identity may not migrate into the environment, or when every failure
// was a refusal by the server's rules (a webhook, RBAC, the preflight of the server's
// update rules); 1 when any cluster failed otherwise, a named cluster does not exist, or
// the run was interrupted; 2 for usage errors, including a write without --yes when there
// is no terminal to ask on; 3 when the team is not found or does not define the
// environment. A dry run exits as the run would have, as far as the plan can tell.
package migrate

import (
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// DefaultConcurrency is how many clusters are migrated at once: two requests each, so at
// most 8 requests in flight, a load a shared API server absorbs without noticing.
const DefaultConcurrency = 8

// MaxConcurrency bounds --concurrency.
const MaxConcurrency = 64

// maxAttempts is how often a cluster is re-read and retried after a Conflict.
const maxAttempts = 5

// Store is what env migrate reads and writes: the team, its clusters, policies and
// providers (store.Reader) and the moves (store.Migrator).
type Store interface {
	store.Reader
	store.Migrator
}

var _ Store = store.Store(nil)

// Options are what env migrate runs with: its flags and arguments and, from Complete,
// its dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	// Offline is whether the command works on manifests: the next step is then a commit.
	Offline bool

	Team           string
	Environment    string
	Names          []string
	All            bool
	Selector       string
	Relabel        bool
	Yes            bool
	AllowOverQuota bool
	ForcePolicy    bool
	Concurrency    int

	selector labels.Selector
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "migrate --team TEAM --environment ENV (NAME... | --all | -l SELECTOR)",
		Short: "Move existing clusters into an environment, safely and in bulk",
		Long: `Move existing TenantClusters of a team into one of its environments: the named clusters,
all of them (--all), or those a label selector matches (-l).

It plans first and prints the plan, then asks you to confirm (without a terminal: --yes);
--dry-run prints the plan only. Running it again after an interruption finishes the job.`,
		Example: `  butleradm env migrate --team payments --environment prod ledger-legacy
  butleradm env migrate --team payments --environment dev --all --dry-run
  butleradm env migrate --team payments --environment dev -l '!butler.butlerlabs.dev/environment' --yes
  butleradm env migrate --team payments --environment prod --all --relabel --yes -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	// No API object of its own: -o json|yaml print the plan and results (Output).
	cmdutil.Details(cmd, `The command plans first and prints the plan: which clusters move and from where, which are
skipped and why (already in the environment, in another environment without --relabel,
being deleted, of another team, not found, or refused by the server's rules). --dry-run
prints only the plan and changes nothing.

A plan that would take the environment past its maxClusters, or a member past
maxClustersPerMember (counted by the owner annotation, else creator-email), is refused
before anything changes, naming who and by how much, unless --allow-over-quota.

On a terminal you are asked to confirm; without one (scripts, CI) pass --yes. --relabel also
moves clusters that are already in another environment: on a terminal it asks you to type
RELABEL (even with --yes), and without one it needs --yes.

Each cluster gets one patch that sets the environment label together with the
butler.butlerlabs.dev/migration-operation annotation the server requires for a label change,
and touches nothing else, then a second patch that removes the annotation again. A cluster
changed by someone else meanwhile is read again and planned again, not overwritten. Several
clusters are migrated at once (--concurrency); a failed cluster does not stop the others,
and each failure is reported with the server's message. Running the same command again
after an interruption finishes the job and changes nothing already done; it also removes a
migration annotation left behind on clusters already in the environment. Working on
manifests, each cluster's file is edited in place, comments kept, with the label and the
annotation, the change a GitOps controller must apply and butlerctl check accepts as a
move; once it is applied, running the same command again removes the annotation.

Exit status: 0 all done; 1 some cluster failed, a named cluster does not exist, or the run
was interrupted; 2 usage; 3 team or environment not found; 4 refused (caps, role, or every
failure was a refusal by the server).`)
	o.Print = output.Register(cmd, &f.Options.Output, output.Spec{})
	fl := cmd.Flags()
	cmdutil.TeamFlag(fl, &o.Team, cmdutil.TeamMeaning("Team of the clusters (required)"))
	fl.StringVar(&o.Environment, "environment", "", "Environment to move the clusters into (required)")
	fl.BoolVar(&o.All, "all", false, "Migrate every cluster of the team")
	fl.StringVarP(&o.Selector, "selector", "l", "", "Migrate the clusters this label selector matches, e.g. '!butler.butlerlabs.dev/environment'")
	fl.BoolVar(&o.Relabel, "relabel", false, "Also move clusters that are in another environment")
	factory.AddDryRun(cmd, f)
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Yes, "force", false, "Same as --yes (butler-cli's name)")
	fl.BoolVar(&o.AllowOverQuota, "allow-over-quota", false, "Migrate even if the environment's caps would be exceeded")
	fl.BoolVar(&o.ForcePolicy, "force-policy", false, "Send clusters the target environment's ClusterCreationPolicies would refuse, for the server to answer")
	fl.IntVar(&o.Concurrency, "concurrency", DefaultConcurrency, "Clusters migrated at once")
	return cmd
}

// Complete takes from the Factory what run needs and parses --selector; it reads nothing
// yet.
func (o *Options) Complete(f *factory.Factory, _ *cobra.Command, _ []string) error {
	o.Offline = f.Offline()
	if o.Selector != "" {
		sel, err := labels.Parse(o.Selector)
		if err != nil {
			return cmdutil.UsageError("--selector %q: %v", o.Selector, err)
		}
		o.selector = sel
	}
	return nil
}

// StopsOnInterrupt: the first Ctrl-C stops starting clusters (those in flight finish, so
// none is left half done); a second one ends the process.
func (*Options) StopsOnInterrupt() {}

// Validate checks -o and the flags; mistakes are usage errors (exit 2).
func (o *Options) Validate() error {
	if err := cmdutil.RequireFlag("team", o.Team); err != nil {
		return err
	}
	if err := cmdutil.RequireFlag("environment", o.Environment); err != nil {
		return err
	}
	switch {
	case o.All && len(o.Names) > 0:
		return cmdutil.UsageError("cannot mix --all with positional cluster names")
	case o.Selector != "" && len(o.Names) > 0:
		return cmdutil.UsageError("cannot mix --selector with positional cluster names")
	case o.All && o.Selector != "":
		return cmdutil.UsageError("cannot mix --all with --selector")
	case !o.All && o.Selector == "" && len(o.Names) == 0:
		return cmdutil.UsageError("specify TenantCluster names or pass --all")
	}
	if o.Concurrency < 1 || o.Concurrency > MaxConcurrency {
		return cmdutil.UsageError("--concurrency must be between 1 and %d, got %d", MaxConcurrency, o.Concurrency)
	}
	return nil
}
