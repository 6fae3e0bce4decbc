// Package create is `butleradm env create`: add an environment to a team, checked against
// the Team webhook's rules before the team is written.
package create

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Store is what env create reads and writes: the team and its clusters, and the Team
// edit.
type Store = teamedit.Store

// Options are the flags and arguments of env create.
type Options struct {
	// EnvOptions are the environment's NAME, --team and the dependencies, from Complete.
	shared.EnvOptions[Store]

	teamedit.EnvFlags

	patch teamedit.EnvPatch
}

// Spec is what env create prints: a line for people; for programs the Team as written (an
// environment is part of its Team: -o jsonpath='{.spec.environments[?(@.name=="NAME")]}'
// picks it out).
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create NAME --team TEAM",
		Short: "Add an environment to a team",
		Long: `Add an environment to a team: its caps, the cluster defaults of its clusters, and access
that elevates team members inside it.

The name is a label value: at most 63 characters, letters, digits, '-', '_' and '.', starting
and ending with a letter or digit. It must not match an existing environment of the team,
compared case-insensitively as the server does.

--max-clusters and --max-clusters-per-member of 0 mean no cap and are left out. Caps may only
be set by the team's admins or platform admins, and --access-user/--access-group may only name
members of the team: the change is checked against the server's Team rules first, and a denial
prints the server's message and exits 4. Only spec.environments changes; working on manifests,
the team's file is edited in place.`,
		Example: `  butleradm env create staging --team payments --max-clusters 4 --max-clusters-per-member 1 \
    --cluster-default kubernetesVersion=v1.31.0 --cluster-default workerCount=2 \
    --access-user carol@example.com:admin --manifests gitops/ --as alice@example.com
  butleradm env create qa --team payments --description "QA runs" --cluster-default defaultAddons=cert-manager,metrics-server`,
		Args: cmdutil.ExactArgs(1, "an environment NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd, cmdutil.TeamMeaning("Team to add the environment to (required)"))
	o.EnvFlags.AddFlags(cmd.Flags(), false)
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete parses the environment's flags; bad values are usage errors. It reads nothing.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	var err error
	o.patch, err = o.EnvFlags.Parse(cmd.Flags(), false)
	return err
}

func run(ctx context.Context, o *Options) error {
	s, team, clusters, err := o.TeamClusters(ctx)
	if err != nil {
		return err
	}
	env := v1alpha1.EnvironmentSpec{Name: o.Name}
	o.patch.ApplyTo(&env)
	a, err := teamedit.Apply(ctx, s, team, func(old *v1alpha1.Team) (*v1alpha1.Team, error) {
		// The server compares names case-insensitively (409 Conflict); so does this check,
		// so that "Prod" next to "prod" fails here rather than there.
		if i := teamedit.FindEnvironment(old, o.Name); i >= 0 {
			if existing := old.Spec.Environments[i].Name; existing != o.Name {
				return nil, fmt.Errorf("environment %q already exists on team %s as %q (environment names are compared case-insensitively)", o.Name, old.Name, existing)
			}
			return nil, fmt.Errorf("environment %q already exists on team %s", o.Name, old.Name)
		}
		updated := old.DeepCopy()
		updated.Spec.Environments = append(updated.Spec.Environments, env)
		return updated, nil
	})
	if err != nil {
		return err
	}
	old, res := a.Old, a.Result

	if len(old.Spec.Environments) == 0 {
		if n := unlabelled(clusters); n > 0 {
			fmt.Fprintf(o.IO.ErrOut, "note: team %s had no environments: its clusters without an environment label (%d) keep working, but new clusters must name an environment\n", old.Name, n)
		}
	}
	msg := fmt.Sprintf("environment %q created on team %s", env.Name, old.Name)
	return o.Printer.Done(teamview.Object(a.Updated), msg, store.Where(res, s))
}

// unlabelled counts the clusters without an environment label.
func unlabelled(clusters []v1alpha1.TenantCluster) int {
	n := 0
	for i := range clusters {
		if clusters[i].Labels[v1alpha1.LabelEnvironment] == "" {
			n++
		}
	}
	return n
}
