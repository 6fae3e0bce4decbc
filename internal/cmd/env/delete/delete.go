// Package delete is `butleradm env delete`: remove an environment from a team after a
// confirmation, checked against the Team webhook's rules before the team is written.
package delete

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/names"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what env delete reads and writes: the team, its clusters (those left in the
// environment are counted) and the Team edit.
type Store = teamedit.Store

// Options are the flags and arguments of env delete.
type Options struct {
	// EnvOptions are the environment's NAME, --team and the dependencies, from Complete.
	shared.EnvOptions[Store]

	Yes bool
	// Force deletes the environment even while clusters still carry its label (and asks
	// nothing, as --yes).
	Force bool
}

// Spec is what env delete prints: a line for people; for programs the Team as written,
// without the environment.
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "delete NAME --team TEAM [--yes]",
		Aliases: []string{"rm"},
		Short:   "Remove an environment from a team",
		Long: `Remove an environment from a team. On a terminal you are asked to type the environment's
name to confirm; without one (scripts, CI) pass --yes.

An environment that clusters still carry as their label is not deleted: the command names
them and exits 4, since a label naming no environment of the team leaves a tree that
'butlerctl check' refuses. Move them first with 'butleradm env migrate', or pass --force
to delete it anyway: the clusters are not touched, they keep working and still count
toward the team's quotas, and the server tolerates their label as long as it does not
change. Removing the last environment removes spec.environments.

Removing an environment that has caps counts as changing caps, which only the team's admins
and platform admins may do: the change is checked against the server's Team rules first,
and a denial prints the server's message and exits 4. Only spec.environments changes;
working on manifests, the team's file is edited in place.`,
		Example: `  butleradm env delete qa --team payments
  butleradm env delete qa --team payments --yes --manifests gitops/ --as alice@example.com
  butleradm env migrate --team payments --environment prod -l butler.butlerlabs.dev/environment=dev --relabel --yes
  butleradm env delete dev --team payments --yes`,
		Args: cmdutil.ExactArgs(1, "an environment NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd, cmdutil.TeamMeaning("Team of the environment (required)"))
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Force, "force", false, "Delete even while clusters still carry the environment's label; asks nothing, as --yes")
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, old, clusters, err := o.TeamClusters(ctx)
	if err != nil {
		return err
	}
	i := teamedit.FindEnvironment(old, o.Name)
	if i < 0 {
		return names.EnvironmentNotFound(old, o.Name)
	}
	name := old.Spec.Environments[i].Name

	updated := withoutEnvironment(old, i)
	// Check before asking: no point confirming what the server would refuse.
	if _, err := teamedit.Admit(ctx, s, policy.Update, old, updated); err != nil {
		return err
	}

	in := labelled(clusters, name)
	if len(in) > 0 && !o.Force {
		return stillLabelled(old.Name, name, in)
	}
	yes := o.Yes || o.Force
	pr := prompt.New(o.IO)
	if !yes && !pr.CanPrompt() {
		return cmdutil.UsageError("deleting environment %q needs confirmation: pass --yes (there is no terminal to ask on)", name)
	}
	if n := len(in); n > 0 {
		fmt.Fprintf(o.IO.ErrOut, "%d cluster(s) still carry the label %s=%s: they keep working and still count toward team %s\n",
			n, v1alpha1.LabelEnvironment, name, old.Name)
	}
	if !yes {
		q := fmt.Sprintf("Remove environment %q from team %s? Type the environment name to confirm: ", name, old.Name)
		if err := pr.TypeName(q, "deletion", name); err != nil {
			return err
		}
	}

	// Confirmed: write it, on a fresh read if someone changed the team meanwhile.
	a, err := teamedit.Apply(ctx, s, old, func(cur *v1alpha1.Team) (*v1alpha1.Team, error) {
		i := teamedit.FindEnvironment(cur, name)
		if i < 0 {
			return nil, nil // someone else deleted it
		}
		return withoutEnvironment(cur, i), nil
	})
	if err != nil {
		return err
	}
	written := a.Updated
	if written == nil {
		written = a.Old // someone else deleted it: the team as it is
	}
	msg := fmt.Sprintf("environment %q deleted from team %s", name, old.Name)
	return o.Printer.Done(teamview.Object(written), msg, store.Where(a.Result, s))
}

// withoutEnvironment is a copy of t without its environment i (no list when it was the
// last one).
func withoutEnvironment(t *v1alpha1.Team, i int) *v1alpha1.Team {
	updated := t.DeepCopy()
	envs := updated.Spec.Environments
	updated.Spec.Environments = append(envs[:i:i], envs[i+1:]...)
	if len(updated.Spec.Environments) == 0 {
		updated.Spec.Environments = nil
	}
	return updated
}

// labelled names the clusters whose environment label is env.
func labelled(clusters []v1alpha1.TenantCluster, env string) []string {
	var in []string
	for i := range clusters {
		if policy.InEnvironment(&clusters[i], env) {
			in = append(in, clusters[i].Name)
		}
	}
	sort.Strings(in)
	return in
}

// maxNamed is how many clusters the refusal names before it counts the rest.
const maxNamed = 10

// stillLabelled refuses deleting an environment that clusters still carry: their label
// would name no environment of the team, a tree the gate refuses (exit 4, as a provider
// still in use is refused).
func stillLabelled(team, env string, in []string) error {
	shown := in
	more := ""
	if len(in) > maxNamed {
		shown, more = in[:maxNamed], fmt.Sprintf(" and %d more", len(in)-maxNamed)
	}
	return cmdutil.DeniedError(fmt.Errorf("environment %q still labels %d cluster(s) of team %s: %s%s\n"+
		"Move them first: butleradm env migrate --team %s --environment OTHER -l %s=%s --relabel; or pass --force to delete it anyway",
		env, len(in), team, inert.Line(strings.Join(shown, ", ")), more, team, v1alpha1.LabelEnvironment, env))
}
