package migrate

import (
	"context"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// planned is what the run works from: the store, the request and its plan, and the
// output so far (plan-time failures are results too).
type planned struct {
	s    Store
	req  policy.MigrationRequest
	plan policy.MigrationPlan
	out  *Output
}

// run plans, prints the plan, refuses what the caps refuse, asks, migrates and reports.
// People get text as it goes; -o json|yaml get the Output once, at the end.
func run(ctx context.Context, o *Options) error {
	pl, err := planFor(ctx, o)
	if err != nil {
		return err
	}
	p := o.Printer
	human := !o.Print.Structured()
	plan, out := &pl.plan, pl.out
	if human {
		if err := say(p, func(w io.Writer) { printPlan(w, plan) }); err != nil {
			return err
		}
	}
	if plan.Refused() {
		if err := viewIf(p, !human, out); err != nil {
			return err
		}
		return cmdutil.DeniedError(fmt.Errorf("migration refused: the plan goes past %d cap(s) of environment %q (listed above); pass --allow-over-quota to migrate anyway",
			len(plan.Excess), plan.Environment))
	}
	if human {
		for _, r := range out.Results {
			fmt.Fprintf(o.IO.ErrOut, "error: %s: %s\n", r.Cluster, r.Error)
		}
	}
	work := len(plan.Moves) + len(plan.Cleanups)
	if o.DryRun.Client() || work == 0 {
		if human && work == 0 {
			err = say(p, func(w io.Writer) { fmt.Fprintln(w, "no clusters require relabeling") })
		}
		if err == nil {
			err = viewIf(p, !human, out)
		}
		if err != nil {
			return err
		}
		return exitCode(out)
	}
	if err := confirm(o, plan); err != nil {
		return err
	}
	r := &runner{io: o.IO, s: pl.s, req: pl.req, concurrency: o.Concurrency}
	results, conflicts, interrupted := r.run(ctx, plan, !human)
	for _, res := range results {
		out.add(res)
	}
	out.Summary.Conflicts, out.Summary.Interrupted = conflicts, interrupted
	if human {
		printResults(o, out, results, interrupted)
	} else if err := viewIf(p, true, out); err != nil {
		return err
	}
	return exitCode(out)
}

// say prints text for people.
func say(p *output.Printer, text func(io.Writer)) error {
	return p.Print(output.Doc{Text: func(w io.Writer) error { text(w); return nil }})
}

// viewIf prints the Output for programs, when they asked for it.
func viewIf(p *output.Printer, structured bool, out *Output) error {
	if !structured {
		return nil
	}
	return p.Print(output.Doc{View: out})
}

// planFor reads the team and its clusters, checks the identity may migrate into the
// environment, and plans.
func planFor(ctx context.Context, o *Options) (*planned, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return nil, err
	}
	team, clusters, err := lookup.TeamClusters(ctx, s, o.Team)
	if err != nil {
		return nil, err
	}
	e, err := lookup.RequireEnvironment(team, o.Environment)
	if err != nil {
		return nil, err
	}
	env := e.Name
	username, err := authorize(ctx, s, team, env)
	if err != nil {
		return nil, err
	}
	req := policy.MigrationRequest{
		Team:           team,
		Environment:    env,
		Clusters:       clusters,
		Selection:      policy.MigrationSelection{Names: o.Names, All: o.All, Selector: o.selector},
		Relabel:        o.Relabel,
		AllowOverQuota: o.AllowOverQuota,
		Username:       username,
	}
	if req.ProviderConfig, err = providerLookup(ctx, s, team); err != nil {
		return nil, err
	}
	if req.Policies, err = s.ListClusterCreationPolicies(ctx); apierrors.IsForbidden(err) {
		fmt.Fprintf(o.IO.ErrOut, "Warning: cannot read ClusterCreationPolicies, so they are not checked here (the server applies them): %v\n", err)
		err = nil
	}
	if err != nil {
		return nil, err
	}
	req.ForcePolicy = o.ForcePolicy
	plan := policy.PlanMigration(req)
	for i := range plan.Skipped {
		plan.Skipped[i].Message = skipMessage(plan.Skipped[i])
	}
	return &planned{s: s, req: req, plan: plan, out: newOutput(plan, o.DryRun.On())}, nil
}

// skipMessage is why a cluster is skipped, with the flag that moves a cluster of another
// environment anyway: the plan says what, the command says how.
func skipMessage(s policy.MigrationSkip) string {
	if s.Reason == policy.SkipOtherEnvironment {
		return s.Message + "; pass --relabel to move it"
	}
	return s.Message
}

// authorize returns who asks, when they may operate in env (operator or admin there).
func authorize(ctx context.Context, s store.Reader, team *v1alpha1.Team, env string) (string, error) {
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return "", err
	}
	role := policy.EnvironmentRole(team, env, actor.Identity, actor.PlatformAdmin)
	if !role.Role.CanOperate() {
		return "", cmdutil.DeniedError(fmt.Errorf("user %q may not migrate clusters into environment %q of team %q: role %s (%s); moving clusters into an environment needs operator or admin there",
			actor.Identity.Username, env, team.Name, role.Role, role.Reason))
	}
	return actor.Identity.Username, nil
}

// newOutput starts the Output from the plan. Plan-time failures are results too: a named
// cluster that does not exist, and a patch the server's rules would refuse (not sent).
func newOutput(plan policy.MigrationPlan, dryRun bool) *Output {
	env := plan.Environment
	out := &Output{Plan: plan, DryRun: dryRun, Results: []Result{}}
	out.Summary.Planned = len(plan.Moves) + len(plan.Cleanups)
	out.Summary.Skipped = len(plan.Skipped) - plan.Count(policy.SkipNotFound) - plan.Count(policy.SkipRefused)
	for _, sk := range plan.Skipped {
		switch sk.Reason {
		case policy.SkipNotFound:
			out.add(Result{Cluster: sk.Cluster, To: env, Status: StatusNotFound,
				Error: fmt.Sprintf("tenantclusters.butler.butlerlabs.dev %q not found", sk.Cluster)})
		case policy.SkipRefused:
			out.add(Result{Cluster: sk.Cluster, From: sk.From, To: env, Status: StatusDenied, Error: sk.Message})
		}
	}
	return out
}

// providerLookup finds the ProviderConfigs clusters reference, for the preflight of each
// patch; nil (left to the server) when the identity may not read them.
func providerLookup(ctx context.Context, s store.Reader, team *v1alpha1.Team) (func(*v1alpha1.ProviderReference) (*v1alpha1.ProviderConfig, bool), error) {
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
