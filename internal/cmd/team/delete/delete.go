// Package delete is `butleradm team delete`: delete a Team that has no clusters left,
// after a confirmation.
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what team delete reads and writes: the team, who asks and its clusters (none
// may be left), and the one write.
type Store interface {
	store.Reader
	store.Kinded
	store.TeamDeleter
}

var _ Store = store.Store(nil)

// Options are the flags and arguments of team delete.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team string
	Yes  bool
}

// Spec: the structured formats print the Team as it was before the delete, -o name its
// kind.group/name.
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "delete TEAM [--yes]",
		Aliases: []string{"rm"},
		Short:   "Delete a team that has no clusters left (platform admins only)",
		Long: `Delete a Team. Only platform admins may, and only once the team has no TenantClusters
left in its namespace (clusters being deleted still count): delete them, or move them,
first. Both are checked before anything is sent (exit 4).

On a terminal you are asked to type the team's name to confirm; without one (scripts, CI)
pass --yes (exit 2 otherwise). Live, the delete carries the uid that was read, so a team
deleted and created again under the same name meanwhile is left alone. On manifests the
team's document is removed from its file (and the file, once nothing else is left in it).`,
		Example: `  butleradm team delete risk
  butleradm team delete risk --yes --manifests gitops/ --as olivia@example.com`,
		Args: cmdutil.ExactArgs(1, "a TEAM name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Team = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	team, actor, err := lookup.TeamAndActor(ctx, s, o.Team)
	if err != nil {
		return err
	}
	// Who first: someone who may not delete the team hears that, not that they may not
	// list its clusters.
	if den := policy.MayDeleteTeam(team, actor.Identity, actor.PlatformAdmin, 0); den != nil {
		return cmdutil.DeniedError(den)
	}
	clusters, err := s.ListClusters(ctx, team.TeamNamespace())
	if err != nil {
		return err
	}
	if den := policy.MayDeleteTeam(team, actor.Identity, actor.PlatformAdmin, len(clusters)); den != nil {
		return cmdutil.DeniedError(den)
	}
	if !o.Yes {
		pr := prompt.New(o.IO)
		if !pr.CanPrompt() {
			return cmdutil.UsageError("deleting team %q needs confirmation: pass --yes (there is no terminal to ask on)", team.Name)
		}
		if err := confirm(pr, team); err != nil {
			return err
		}
	}
	res, err := s.DeleteTeam(ctx, team)
	if err != nil {
		return err
	}
	msg := "team.butler.butlerlabs.dev/" + team.Name + " deleted"
	return o.Printer.Done(teamview.Object(team), msg, store.Where(res, s))
}

func confirm(pr *prompt.Prompter, t *v1alpha1.Team) error {
	return pr.TypeName(fmt.Sprintf("Delete Team %s (%d environment(s), %d member(s), %d group(s))? Type its name to confirm: ",
		t.Name, len(t.Spec.Environments), len(t.Spec.Access.Users), len(t.Spec.Access.Groups)), "deletion", t.Name)
}
