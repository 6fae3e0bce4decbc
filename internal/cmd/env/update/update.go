// Package update is `butleradm env update`: change an environment of a team, only what the
// flags name, checked against the Team webhook's rules before the team is written.
package update

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/names"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// NothingToUpdate is butler-cli's message when no flag asks for a change.
const NothingToUpdate = "nothing to update: pass --description, --max-clusters, --max-clusters-per-member, --clear-limits, --cluster-default, --clear-cluster-defaults, --access-user, --access-group, or --clear-access"

// Store is what env update reads and writes: the team, its clusters (a limit set below
// their usage is warned about) and the Team edit.
type Store = teamedit.Store

// Options are the flags and arguments of env update.
type Options struct {
	// EnvOptions are the environment's NAME, --team and the dependencies, from Complete.
	shared.EnvOptions[Store]

	ClearLimits          bool
	ClearClusterDefaults bool
	ClearAccess          bool
	teamedit.EnvFlags

	patch teamedit.EnvPatch
}

// Spec is what env update prints: a line for people; for programs the Team as written (an
// environment is part of its Team: -o jsonpath='{.spec.environments[?(@.name=="NAME")]}'
// picks it out).
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "update NAME --team TEAM",
		Short: "Change an environment of a team: caps, cluster defaults, access, description",
		Long: `Change an environment of a team. Only what the flags name changes:

  --max-clusters N / --max-clusters-per-member N   set a cap; 0 removes it (no cap)
  --cluster-default KEY=VALUE                      set a default; KEY= removes it
  --access-user EMAIL:ROLE                         add a member or change its role; EMAIL: removes it
  --access-group NAME:ROLE[:IDP]                   the same for a group; NAME: or NAME::IDP removes it
  --description TEXT                               set the description; "" clears it
  --clear-limits, --clear-cluster-defaults, --clear-access
                                                   remove the whole block first (then the flags
                                                   above, if any, fill it anew)

A block left empty is removed. The environment is found by its name, exactly or else
case-insensitively as the server does; the name itself cannot change (delete and create to
rename).

Caps may only be changed by the team's admins or platform admins, and access may only name
members of the team: the change is checked against the server's Team rules first, and a
denial prints the server's message and exits 4. Only spec.environments changes; working on
manifests, the team's file is edited in place.`,
		Example: `  butleradm env update prod --team payments --max-clusters 8 --manifests gitops/ --as alice@example.com
  butleradm env update dev --team payments --cluster-default workerCount= --access-user carol@example.com:admin
  butleradm env update dev --team payments --clear-limits`,
		Args: cmdutil.ExactArgs(1, "an environment NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd, cmdutil.TeamMeaning("Team of the environment (required)"))
	o.EnvFlags.AddFlags(fl, true)
	fl.BoolVar(&o.ClearLimits, "clear-limits", false, "Remove the environment's limits (no caps)")
	fl.BoolVar(&o.ClearClusterDefaults, "clear-cluster-defaults", false, "Remove the environment's cluster defaults")
	fl.BoolVar(&o.ClearAccess, "clear-access", false, "Remove the environment's access elevations")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete parses the environment's flags; bad values are usage errors. It reads nothing.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	var err error
	o.patch, err = o.EnvFlags.Parse(cmd.Flags(), true)
	return err
}

// Validate checks that there is something to update, before anything is read.
func (o *Options) Validate() error {
	if o.patch.Empty() && !o.ClearLimits && !o.ClearClusterDefaults && !o.ClearAccess {
		return cmdutil.UsageError(NothingToUpdate)
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	var env *v1alpha1.EnvironmentSpec
	a, err := teamedit.Edit(ctx, s, o.Team, func(old *v1alpha1.Team) (*v1alpha1.Team, error) {
		i := teamedit.FindEnvironment(old, o.Name)
		if i < 0 {
			return nil, names.EnvironmentNotFound(old, o.Name)
		}
		updated := old.DeepCopy()
		env = &updated.Spec.Environments[i]
		if o.ClearLimits {
			env.Limits = nil
		}
		if o.ClearClusterDefaults {
			env.ClusterDefaults = nil
		}
		if o.ClearAccess {
			env.Access = nil
		}
		o.patch.ApplyTo(env)
		if equality.Semantic.DeepEqualWithNilDifferentFromEmpty(old.Spec.Environments[i], *env) {
			return nil, nil
		}
		return updated, nil
	})
	if err != nil {
		return err
	}
	teamedit.WarnBelowUsage(ctx, s, a, o.IO.ErrOut)
	msg, written := fmt.Sprintf("environment %q on team %s unchanged", env.Name, a.Old.Name), a.Old
	if a.Updated != nil {
		msg, written = fmt.Sprintf("environment %q updated on team %s", env.Name, a.Old.Name), a.Updated
	}
	return o.Printer.Done(teamview.Object(written), msg, store.Where(a.Result, s))
}
