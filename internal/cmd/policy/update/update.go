// Package update is `butleradm policy update`: change a ClusterCreationPolicy with flags or
// replace its spec from a file, judged as the server judges an update before anything is
// written (docs/cluster-creation-policies.md).
package update

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what policy update prints: a line for people; for programs the policy as written.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what policy update reads and writes: the policy, the others, the teams and who
// asks, and the one write.
type Store = policyutil.Writer

// Options are the flags and arguments of policy update.
type Options struct {
	// SpecOptions are NAME, the spec's flags, -f and the dependencies, from Complete.
	policyutil.SpecOptions

	Remove       []string
	AllProviders bool
	// edits counts the flags that change something (Validate), File aside.
	edits int
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "update NAME ([--scope S] [--team T] [--environment E] [--provider-type P]... [--all-providers] [--option OPTION=MODE:V1,V2...]... [--remove-option OPTION]... | -f FILE)",
		Short: "Change a ClusterCreationPolicy, refused with the server's messages (platform admins only)",
		Long: `Change a ClusterCreationPolicy. With flags, only what they name changes: --scope, --team and
--environment the scope (the scope's kind is kept unless --scope is given), --provider-type
the target providers (the whole list; --all-providers empties it), --option the rule of one
option, --remove-option drops one. -f FILE replaces the whole spec with the file's.

The result is judged as the server's webhook judges an update, with its messages and exit 4,
before anything is written: the scope's team and environment must exist, each rule must be
well-formed, and no other policy of the same tier and target may rule the same option (the
policy is not a conflict of its own). A spec left as it was is not written ("unchanged"),
as the server admits such an update without checking it.

Only platform admins may: live, the server decides; working on manifests, the identity
given with --as must be a platform admin (exit 4 otherwise), and the policy's document is
rewritten in place.`,
		Example: `  butleradm policy update payments-images --option image=allowList:ubuntu-24,ubuntu-22 --manifests DIR --as admin@example.com
  butleradm policy update payments-images --remove-option network
  butleradm policy update payments-images -f policy.yaml`,
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Scope, "scope", "", "platformWide, team or teamAndEnvironment (default: the policy's)")
	cmdutil.TeamFlag(fl, &o.Team, cmdutil.TeamOfScope)
	fl.StringVar(&o.Environment, "environment", "", "The environment of a teamAndEnvironment scope")
	fl.StringArrayVar(&o.Providers, "provider-type", nil, "Only for these provider types (repeatable; replaces the list)")
	fl.BoolVar(&o.AllProviders, "all-providers", false, "For every provider type (empties the list)")
	fl.StringArrayVar(&o.Rules, "option", nil, "OPTION=MODE[:V1,V2...] (repeatable): replaces that option's rule")
	fl.StringArrayVar(&o.Remove, "remove-option", nil, "Drop the rule of this option (repeatable)")
	fl.StringVarP(&o.File, "filename", "f", "", "Replace the spec with the ClusterCreationPolicy of this YAML file (- for standard input)")
	o.Print = f.NamedCommand(cmd, "a policy NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete checks the flag combinations: something to change, flags or -f but not both.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	o.edits = 0
	for _, name := range []string{"scope", "team", "environment", "provider-type", "all-providers", "option", "remove-option"} {
		if cmd.Flags().Changed(name) {
			o.edits++
		}
	}
	switch {
	case o.File != "" && o.edits > 0:
		return cmdutil.UsageError("-f replaces the whole spec: give it alone, or use the flags without -f")
	case o.File == "" && o.edits == 0:
		return cmdutil.UsageError("nothing to update: give --scope, --team, --environment, --provider-type, --all-providers, --option, --remove-option or -f FILE")
	case o.AllProviders && len(o.Providers) > 0:
		return cmdutil.UsageError("--all-providers and --provider-type contradict each other")
	}
	return o.OneStdin()
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	cur, err := lookup.Policy(ctx, s, o.Name)
	if err != nil {
		return err
	}
	if err := policyutil.Authorize(ctx, s, "update", cur.Name); err != nil {
		return err
	}
	next, err := o.apply(cur)
	if err != nil {
		return err
	}
	p := o.Printer
	if equality.Semantic.DeepEqual(cur.Spec, next.Spec) {
		return p.Done(next, fmt.Sprintf("clustercreationpolicy %q unchanged", next.Name), "")
	}
	if err := policyutil.Admit(ctx, s, policy.Update, next); err != nil {
		return err
	}
	res, err := s.UpdateClusterCreationPolicy(ctx, next)
	if err != nil {
		return err
	}
	return p.Done(next, fmt.Sprintf("clustercreationpolicy %q updated", next.Name), store.Where(res, s))
}

// apply returns cur changed by the flags, or with the file's spec.
func (o *Options) apply(cur *v1alpha1.ClusterCreationPolicy) (*v1alpha1.ClusterCreationPolicy, error) {
	next := cur.DeepCopy()
	next.APIVersion, next.Kind = v1alpha1.APIVersion, v1alpha1.KindClusterCreationPolicy
	if o.File != "" {
		fromFile, err := o.FromFile()
		if err != nil {
			return nil, err
		}
		next.Spec = fromFile.Spec
		return next, nil
	}
	if o.Scope != "" || o.Team != "" || o.Environment != "" {
		scope, err := o.scope(cur.Spec.Scope)
		if err != nil {
			return nil, err
		}
		next.Spec.Scope = scope
	}
	switch {
	case o.AllProviders:
		next.Spec.TargetProviders = nil
	case len(o.Providers) > 0:
		next.Spec.TargetProviders = policyutil.Providers(o.Providers)
	}
	if err := policyutil.SetOptions(next, o.Rules); err != nil {
		return nil, err
	}
	for _, key := range o.Remove {
		if _, ok := next.Spec.Options[key]; !ok {
			return nil, cmdutil.UsageError("--remove-option %q: ClusterCreationPolicy %q has no rule for that option", key, cur.Name)
		}
		delete(next.Spec.Options, key)
	}
	return next, nil
}

// scope is the policy's scope with the flags given over it: the kind and the names the
// flags leave out are kept.
func (o *Options) scope(cur v1alpha1.PolicyScope) (v1alpha1.PolicyScope, error) {
	kind, team, env := "platformWide", "", ""
	switch {
	case cur.Team != nil:
		kind, team = "team", cur.Team.TeamRef.Name
	case cur.TeamAndEnvironment != nil:
		kind, team, env = "teamAndEnvironment", cur.TeamAndEnvironment.TeamRef.Name, cur.TeamAndEnvironment.EnvironmentName
	}
	if o.Scope != "" {
		kind = o.Scope
	}
	if o.Team != "" {
		team = o.Team
	}
	if o.Environment != "" {
		env = o.Environment
	}
	switch {
	case kind == "platformWide" && o.Team != "":
		return v1alpha1.PolicyScope{}, cmdutil.UsageError("--team: a platformWide scope has no team (pass --scope team or teamAndEnvironment)")
	case kind != "teamAndEnvironment" && o.Environment != "":
		return v1alpha1.PolicyScope{}, cmdutil.UsageError("--environment: only a teamAndEnvironment scope has an environment (pass --scope teamAndEnvironment)")
	}
	return policyutil.Scope(kind, team, env)
}
