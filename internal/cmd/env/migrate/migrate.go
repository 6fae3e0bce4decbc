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
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// DefaultConcurrency is how many clusters are migrated at once: two requests each, so at
// most 8 requests in flight, a load a shared API server absorbs without noticing.
const DefaultConcurrency = 8

// MaxConcurrency bounds --concurrency.
const MaxConcurrency = 64

// maxAttempts is how often a cluster is re-read and retried after a Conflict.
const maxAttempts = 5

// Options are the flags and arguments of env migrate.
type Options struct {
	Team           string
	Environment    string
	Names          []string
	All            bool
	Selector       string
	Relabel        bool
	DryRun         bool
	Yes            bool
	AllowOverQuota bool
	ForcePolicy    bool
	Concurrency    int

	selector labels.Selector
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "migrate --team TEAM --environment ENV (NAME... | --all | -l SELECTOR)",
		Short: "Move existing clusters into an environment, safely and in bulk",
		Long: `Move existing TenantClusters of a team into one of its environments: the named clusters,
all of them (--all), or those a label selector matches (-l).

The command plans first and prints the plan: which clusters move and from where, which are
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
manifests, each cluster's file is edited in place, comments kept.

Exit status: 0 all done; 1 some cluster failed, a named cluster does not exist, or the run
was interrupted; 2 usage; 3 team or environment not found; 4 refused (caps, role, or every
failure was a refusal by the server).`,
		Example: `  butleradm env migrate --team payments --environment prod ledger-legacy
  butleradm env migrate --team payments --environment dev --all --dry-run
  butleradm env migrate --team payments --environment dev -l '!butler.butlerlabs.dev/environment' --yes
  butleradm env migrate --team payments --environment prod --all --relabel --yes -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			if err := o.complete(); err != nil {
				return err
			}
			// The first Ctrl-C stops starting clusters (those in flight finish, so none is
			// left half done); a second one ends the process.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				stop()
			}()
			return run(ctx, f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Team, "team", "", "Team of the clusters (required)")
	fl.StringVar(&o.Environment, "environment", "", "Environment to move the clusters into (required)")
	fl.BoolVar(&o.All, "all", false, "Migrate every cluster of the team")
	fl.StringVarP(&o.Selector, "selector", "l", "", "Migrate the clusters this label selector matches, e.g. '!butler.butlerlabs.dev/environment'")
	fl.BoolVar(&o.Relabel, "relabel", false, "Also move clusters that are in another environment")
	fl.BoolVar(&o.DryRun, "dry-run", false, "Print the plan and change nothing")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Yes, "force", false, "Same as --yes (butler-cli's name)")
	fl.BoolVar(&o.AllowOverQuota, "allow-over-quota", false, "Migrate even if the environment's caps would be exceeded")
	fl.BoolVar(&o.ForcePolicy, "force-policy", false, "Send clusters the target environment's ClusterCreationPolicies would refuse, for the server to answer")
	fl.IntVar(&o.Concurrency, "concurrency", DefaultConcurrency, "Clusters migrated at once")
	return cmd
}

// complete checks the flags; mistakes are usage errors (exit 2).
func (o *Options) complete() error {
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
	if o.Selector != "" {
		sel, err := labels.Parse(o.Selector)
		if err != nil {
			return cmdutil.UsageError("--selector %q: %v", o.Selector, err)
		}
		o.selector = sel
	}
	if o.Concurrency < 1 || o.Concurrency > MaxConcurrency {
		return cmdutil.UsageError("--concurrency must be between 1 and %d, got %d", MaxConcurrency, o.Concurrency)
	}
	return nil
}

// Result statuses, one per cluster the run touched or meant to.
const (
	StatusMigrated     = "migrated"      // label set, annotation removed
	StatusCleaned      = "cleaned"       // a leftover annotation removed
	StatusSkipped      = "skipped"       // changed meanwhile; re-planned, nothing left to do
	StatusGone         = "gone"          // deleted meanwhile
	StatusDenied       = "denied"        // refused by the server's rules
	StatusFailed       = "failed"        // any other error
	StatusNotFound     = "not-found"     // named, but does not exist
	StatusNotAttempted = "not-attempted" // the run was interrupted first
)

// Result is the outcome for one cluster.
type Result struct {
	Cluster string `json:"cluster"`
	From    string `json:"from"`
	To      string `json:"to"`
	Status  string `json:"status"`
	// Error is the server's message for a failure; Message explains a skip.
	Error   string `json:"error"`
	Message string `json:"message,omitempty"`
	// Attempts counts the patches of the first step (more than 1 after a Conflict).
	Attempts int `json:"attempts,omitempty"`
}

func (r Result) failed() bool {
	switch r.Status {
	case StatusDenied, StatusFailed, StatusNotFound, StatusNotAttempted:
		return true
	}
	return false
}

// Summary counts the outcomes.
type Summary struct {
	Planned      int  `json:"planned"` // moves and cleanups in the plan
	Migrated     int  `json:"migrated"`
	Cleaned      int  `json:"cleaned"`
	Skipped      int  `json:"skipped"` // in the plan, and re-planned away during the run
	Gone         int  `json:"gone"`
	Denied       int  `json:"denied"`
	Failed       int  `json:"failed"`
	NotFound     int  `json:"notFound"`
	NotAttempted int  `json:"notAttempted"`
	Conflicts    int  `json:"conflicts"` // Conflicts met, each followed by a re-read and a re-plan
	Interrupted  bool `json:"interrupted,omitempty"`
}

// Output is the -o json document.
type Output struct {
	Plan    policy.MigrationPlan `json:"plan"`
	DryRun  bool                 `json:"dryRun"`
	Results []Result             `json:"results"`
	Summary Summary              `json:"summary"`
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	if err := f.ValidateOutput("table", "json", "yaml"); err != nil {
		return err
	}
	structured := f.Options.Output != "table"
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	mig, ok := s.(store.Migrator)
	if !ok {
		return fmt.Errorf("the %s store cannot migrate clusters", s.Mode())
	}
	team, clusters, err := lookup.TeamClusters(ctx, s, o.Team)
	if err != nil {
		return err
	}
	i := teamedit.FindEnvironment(team, o.Environment)
	if i < 0 {
		return cmdutil.NotFoundError("environment %q is not defined on team %s; create it first", o.Environment, team.Name)
	}
	env := team.Spec.Environments[i].Name

	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return err
	}
	role := policy.EnvironmentRole(team, env, actor.Identity, actor.PlatformAdmin)
	if !role.Role.CanOperate() {
		return cmdutil.DeniedError(fmt.Errorf("user %q may not migrate clusters into environment %q of team %q: role %s (%s); moving clusters into an environment needs operator or admin there",
			actor.Identity.Username, env, team.Name, role.Role, role.Reason))
	}
	req := policy.MigrationRequest{
		Team:           team,
		Environment:    env,
		Clusters:       clusters,
		Selection:      policy.MigrationSelection{Names: o.Names, All: o.All, Selector: o.selector},
		Relabel:        o.Relabel,
		AllowOverQuota: o.AllowOverQuota,
		Username:       actor.Identity.Username,
	}
	if req.ProviderConfig, err = providerLookup(ctx, s, team); err != nil {
		return err
	}
	if req.Policies, err = s.ListClusterCreationPolicies(ctx); apierrors.IsForbidden(err) {
		fmt.Fprintf(f.IOStreams.ErrOut, "Warning: cannot read ClusterCreationPolicies, so they are not checked here (the server applies them): %v\n", err)
		err = nil
	}
	if err != nil {
		return err
	}
	req.ForcePolicy = o.ForcePolicy
	plan := policy.PlanMigration(req)

	out := &Output{Plan: plan, DryRun: o.DryRun, Results: []Result{}}
	out.Summary.Planned = len(plan.Moves) + len(plan.Cleanups)
	out.Summary.Skipped = len(plan.Skipped) - plan.Count(policy.SkipNotFound) - plan.Count(policy.SkipRefused)
	// Plan-time failures are results too: a named cluster that does not exist, and a
	// patch the server's rules would refuse (it is not sent).
	for _, sk := range plan.Skipped {
		switch sk.Reason {
		case policy.SkipNotFound:
			out.add(Result{Cluster: sk.Cluster, To: env, Status: StatusNotFound,
				Error: fmt.Sprintf("tenantclusters.butler.butlerlabs.dev %q not found", sk.Cluster)})
		case policy.SkipRefused:
			out.add(Result{Cluster: sk.Cluster, From: sk.From, To: env, Status: StatusDenied, Error: sk.Message})
		}
	}

	if !structured {
		printPlan(f.IOStreams.Out, &plan)
	}
	if plan.Refused() {
		if structured {
			if err := printers.Print(f.IOStreams.Out, f.Options.Output, out); err != nil {
				return err
			}
		}
		return cmdutil.DeniedError(fmt.Errorf("migration refused: the plan goes past %d cap(s) of environment %q (listed above); pass --allow-over-quota to migrate anyway",
			len(plan.Excess), env))
	}
	if !structured {
		for _, r := range out.Results {
			f.Errorf("error: %s: %s\n", r.Cluster, r.Error)
		}
	}
	work := len(plan.Moves) + len(plan.Cleanups)
	if o.DryRun || work == 0 {
		if structured {
			if err := printers.Print(f.IOStreams.Out, f.Options.Output, out); err != nil {
				return err
			}
		} else if work == 0 {
			fmt.Fprintln(f.IOStreams.Out, "no clusters require relabeling")
		}
		return exitCode(out)
	}

	if err := confirm(f, o, &plan); err != nil {
		return err
	}

	r := &runner{f: f, s: s, m: mig, req: req, concurrency: o.Concurrency}
	results, conflicts, interrupted := r.run(ctx, &plan, structured)
	for _, res := range results {
		out.add(res)
	}
	out.Summary.Conflicts = conflicts
	out.Summary.Interrupted = interrupted
	if structured {
		if err := printers.Print(f.IOStreams.Out, f.Options.Output, out); err != nil {
			return err
		}
		return exitCode(out)
	}
	printResults(f, out, results, interrupted)
	return exitCode(out)
}

// add records a result and counts it.
func (o *Output) add(r Result) {
	o.Results = append(o.Results, r)
	s := &o.Summary
	switch r.Status {
	case StatusMigrated:
		s.Migrated++
	case StatusCleaned:
		s.Cleaned++
	case StatusSkipped:
		s.Skipped++
	case StatusGone:
		s.Gone++
	case StatusDenied:
		s.Denied++
	case StatusFailed:
		s.Failed++
	case StatusNotFound:
		s.NotFound++
	case StatusNotAttempted:
		s.NotAttempted++
	}
}

// exitCode is nil when nothing failed, exit 4 when every failure was a refusal, else 1.
// The error is silent: the failures were reported already.
func exitCode(o *Output) error {
	s := o.Summary
	switch {
	case s.Denied+s.Failed+s.NotFound+s.NotAttempted == 0:
		return nil
	case s.Failed+s.NotFound+s.NotAttempted == 0:
		return &cmdutil.SilentError{Code: cmdutil.ExitDenied}
	}
	return &cmdutil.SilentError{Code: cmdutil.ExitFailure}
}

// providerLookup finds the ProviderConfigs clusters reference, for the preflight of each
// patch; nil (left to the server) when the identity may not read them.
func providerLookup(ctx context.Context, s store.Store, team *v1alpha1.Team) (func(*v1alpha1.ProviderReference) (*v1alpha1.ProviderConfig, bool), error) {
	byKey := map[string]*v1alpha1.ProviderConfig{}
	for _, ns := range []string{team.TeamNamespace(), v1alpha1.DefaultProviderNamespace} {
		list, err := s.ListProviderConfigs(ctx, ns)
		if apierrors.IsForbidden(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		for i := range list {
			byKey[list[i].Namespace+"/"+list[i].Name] = &list[i]
		}
	}
	return func(ref *v1alpha1.ProviderReference) (*v1alpha1.ProviderConfig, bool) {
		ns := ref.Namespace
		if ns == "" {
			ns = v1alpha1.DefaultProviderNamespace
		}
		pc, ok := byKey[ns+"/"+ref.Name]
		return pc, ok
	}, nil
}

// fromText prints an environment label, "(unlabeled)" when there is none.
func fromText(env string) string {
	if env == "" {
		return "(unlabeled)"
	}
	return env
}

// printPlan prints the plan in butler-cli's form, then what is cleaned up and skipped, and
// the caps it goes past.
func printPlan(w io.Writer, p *policy.MigrationPlan) {
	fmt.Fprintf(w, "Migration plan: target environment %q (%d cluster(s))\n", p.Environment, len(p.Moves))
	for _, m := range p.Moves {
		fmt.Fprintf(w, "  %s  %s -> %s\n", m.Cluster, fromText(m.From), m.To)
	}
	if len(p.Cleanups) > 0 {
		fmt.Fprintf(w, "Already in %q, still carrying the %s annotation, which is removed (%d):\n",
			p.Environment, v1alpha1.AnnotationMigration, len(p.Cleanups))
		for _, m := range p.Cleanups {
			fmt.Fprintf(w, "  %s\n", m.Cluster)
		}
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped (%d):\n", len(p.Skipped))
		for _, s := range p.Skipped {
			fmt.Fprintf(w, "  %s  %s\n", s.Cluster, s.Message)
		}
	}
	if len(p.Excess) > 0 {
		if p.AllowOverQuota {
			fmt.Fprintf(w, "Over the caps of environment %q (allowed by --allow-over-quota):\n", p.Environment)
		} else {
			fmt.Fprintf(w, "Over the caps of environment %q (refused):\n", p.Environment)
		}
		for _, e := range p.Excess {
			fmt.Fprintf(w, "  %s\n", e.Message)
		}
	}
}

// confirm asks on a terminal, or requires --yes without one.
func confirm(f *factory.Factory, o *Options, p *policy.MigrationPlan) error {
	st := f.IOStreams
	relabels := p.Relabels()
	if !st.CanPrompt() {
		if o.Yes {
			return nil
		}
		if relabels > 0 {
			return cmdutil.UsageError("--relabel rewrites the environment of %d cluster(s) already in another environment: pass --yes to confirm (there is no terminal to ask on)", relabels)
		}
		return cmdutil.UsageError("migrating %d cluster(s) into environment %q needs confirmation: pass --yes (there is no terminal to ask on)",
			len(p.Moves)+len(p.Cleanups), p.Environment)
	}
	in := bufio.NewReader(st.In)
	if !o.Yes {
		q := fmt.Sprintf("Apply environment %q label to %d cluster(s)? [y/N]: ", p.Environment, len(p.Moves))
		if len(p.Moves) == 0 {
			q = fmt.Sprintf("Remove the leftover %s annotation from %d cluster(s)? [y/N]: ", v1alpha1.AnnotationMigration, len(p.Cleanups))
		}
		if err := ask(in, st.ErrOut, q, func(s string) bool {
			s = strings.ToLower(s)
			return s == "y" || s == "yes"
		}); err != nil {
			return err
		}
	}
	if relabels > 0 {
		// Shown even with --yes, as butler-cli does: only the word itself passes.
		if err := ask(in, st.ErrOut, "Relabel is destructive and rewrites existing environment assignments. Type RELABEL to proceed: ",
			func(s string) bool { return s == "RELABEL" }); err != nil {
			return err
		}
	}
	return nil
}

func ask(in *bufio.Reader, out io.Writer, question string, ok func(string) bool) error {
	fmt.Fprint(out, question)
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(out)
	}
	typed := strings.TrimSpace(line)
	if !ok(typed) {
		return fmt.Errorf("migration cancelled: input %q", typed)
	}
	return nil
}

// printResults prints each cluster's outcome in plan order (successes on stdout, failures
// on stderr with the server's message) and the summary.
func printResults(f *factory.Factory, out *Output, results []Result, interrupted bool) {
	w := f.IOStreams.Out
	for _, r := range results {
		name := "tenantcluster.butler.butlerlabs.dev/" + r.Cluster
		switch r.Status {
		case StatusMigrated:
			fmt.Fprintf(w, "%s migrated: %s -> %s\n", name, fromText(r.From), r.To)
		case StatusCleaned:
			fmt.Fprintf(w, "%s: %s annotation removed\n", name, v1alpha1.AnnotationMigration)
		case StatusSkipped, StatusGone:
			fmt.Fprintf(w, "%s %s: %s\n", name, r.Status, r.Message)
		default:
			f.Errorf("error: %s %s: %s\n", r.Cluster, r.Status, r.Error)
		}
	}
	s := out.Summary
	parts := []string{fmt.Sprintf("%d migrated", s.Migrated)}
	if s.Cleaned > 0 {
		parts = append(parts, fmt.Sprintf("%d cleaned up", s.Cleaned))
	}
	parts = append(parts, fmt.Sprintf("%d skipped", s.Skipped))
	for _, x := range []struct {
		n    int
		what string
	}{{s.Gone, "gone"}, {s.Denied, "denied"}, {s.NotFound, "not found"}, {s.NotAttempted, "not attempted"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	fmt.Fprintf(w, "Summary: %s\n", strings.Join(parts, ", "))
	if interrupted {
		f.Errorf("interrupted: run the same command again to finish; clusters already migrated are skipped\n")
	} else if s.Failed > 0 {
		f.Errorf("%d cluster(s) failed; the others were migrated. Run the same command again to retry them\n", s.Failed)
	}
}

// runner migrates the planned clusters, concurrency at a time.
type runner struct {
	f           *factory.Factory
	s           store.Store
	m           store.Migrator
	req         policy.MigrationRequest
	concurrency int

	mu        sync.Mutex
	conflicts int
}

type job struct {
	index int
	move  policy.MigrationMove
}

// run migrates every move and cleanup; results come back in plan order.
func (r *runner) run(ctx context.Context, p *policy.MigrationPlan, structured bool) ([]Result, int, bool) {
	byName := make(map[string]*v1alpha1.TenantCluster, len(r.req.Clusters))
	for i := range r.req.Clusters {
		byName[r.req.Clusters[i].Name] = &r.req.Clusters[i]
	}
	moves := append(append([]policy.MigrationMove{}, p.Moves...), p.Cleanups...)
	results := make([]Result, len(moves))
	prog := newProgress(r.f, p.Environment, len(moves), structured)

	jobs := make(chan job)
	var wg sync.WaitGroup
	workers := min(r.concurrency, len(moves))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					results[j.index] = notAttempted(j.move)
					continue
				}
				res := r.migrate(ctx, byName[j.move.Cluster], j.move)
				results[j.index] = res
				prog.done(res)
			}
		}()
	}
feed:
	for i, m := range moves {
		select {
		case jobs <- job{index: i, move: m}:
		case <-ctx.Done():
			for k := i; k < len(moves); k++ {
				results[k] = notAttempted(moves[k])
			}
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	prog.finish()
	interrupted := false
	for _, res := range results {
		if res.Status == StatusNotAttempted {
			interrupted = true
		}
	}
	return results, r.conflicts, interrupted
}

func notAttempted(m policy.MigrationMove) Result {
	return Result{Cluster: m.Cluster, From: m.From, To: m.To, Status: StatusNotAttempted,
		Error: "the run was interrupted before this cluster"}
}

// migrate migrates one cluster, re-reading and re-planning it after a Conflict.
func (r *runner) migrate(ctx context.Context, c *v1alpha1.TenantCluster, m policy.MigrationMove) Result {
	res := Result{Cluster: m.Cluster, From: m.From, To: m.To}
	for {
		res.Attempts++
		out, err := r.m.MigrateCluster(ctx, c, m.To)
		if err == nil {
			res.Status = StatusMigrated
			if m.Cleanup {
				res.Status = StatusCleaned
			}
			return res
		}
		if out.Labeled {
			res.Status = StatusFailed
			res.Error = fmt.Sprintf("the environment label is set, but removing the %s annotation failed: %v; run the migration again to remove it",
				v1alpha1.AnnotationMigration, err)
			return res
		}
		switch {
		case apierrors.IsConflict(err) && res.Attempts < maxAttempts:
			r.mu.Lock()
			r.conflicts++
			r.mu.Unlock()
			fresh, gerr := r.s.GetCluster(ctx, c.Namespace, c.Name)
			if apierrors.IsNotFound(gerr) {
				res.Status, res.Message = StatusGone, "deleted during the run"
				return res
			}
			if gerr != nil {
				return failure(res, gerr)
			}
			step := policy.ClassifyMigration(r.req, fresh)
			if step.Skip != nil {
				if step.Skip.Reason == policy.SkipRefused {
					res.Status, res.Error = StatusDenied, step.Skip.Message
					return res
				}
				res.Status = StatusSkipped
				res.Message = "changed during the run, so planned again: " + step.Skip.Message
				return res
			}
			c, m = fresh, step.Move
			res.From = m.From
		case apierrors.IsNotFound(err):
			res.Status, res.Message = StatusGone, "deleted during the run"
			return res
		case ctx.Err() != nil:
			res.Status = StatusNotAttempted
			res.Error = fmt.Sprintf("interrupted: %v", err)
			return res
		default:
			return failure(res, err)
		}
	}
}

// failure records err: a refusal by the server's rules or permissions is denied, anything
// else failed; the message is the server's.
func failure(res Result, err error) Result {
	res.Error = err.Error()
	res.Status = StatusFailed
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || cmdutil.CodeOf(err) == cmdutil.ExitDenied {
		res.Status = StatusDenied
	}
	return res
}

// progress reports the run on stderr: a bar redrawn in place on a terminal, otherwise one
// line per cluster (none with -o json/yaml, whose consumers read stdout).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	bar      bool
	lines    bool
	env      string
	total    int
	n, bad   int
	last     time.Time
	finished bool
}

func newProgress(f *factory.Factory, env string, total int, structured bool) *progress {
	p := &progress{w: f.IOStreams.ErrOut, env: env, total: total}
	if f.IOStreams.IsStderrTTY() {
		p.bar = true
		p.draw()
	} else {
		p.lines = !structured
	}
	return p
}

func (p *progress) done(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if r.failed() {
		p.bad++
	}
	switch {
	case p.bar:
		if time.Since(p.last) >= 100*time.Millisecond || p.n == p.total {
			p.draw()
		}
	case p.lines:
		detail := r.Error
		if detail == "" {
			detail = r.Message
		}
		if detail != "" {
			detail = ": " + detail
		}
		fmt.Fprintf(p.w, "[%d/%d] %s %s -> %s: %s%s\n", p.n, p.total, r.Cluster, fromText(r.From), r.To, r.Status, detail)
	}
}

// draw redraws the bar; the caller holds mu (or is the constructor).
func (p *progress) draw() {
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = p.n * width / p.total
	}
	fmt.Fprintf(p.w, "\r\x1b[KMigrating to %q [%s%s] %d/%d", p.env,
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.n, p.total)
	if p.bad > 0 {
		fmt.Fprintf(p.w, ", %d failed", p.bad)
	}
	p.last = time.Now()
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar && !p.finished {
		p.draw()
		fmt.Fprintln(p.w)
	}
	p.finished = true
}
