// Package setlimits is `butleradm team set-limits`: change a team's resourceLimits, only
// the ones given, after checking that the caller may (only platform admins may).
package setlimits

import (
	"context"
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what team set-limits reads and writes: the team, its clusters (a limit set
// below their usage is warned about) and the Team edit.
type Store = teamedit.Store

// Options are the flags and arguments of team set-limits.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team  string
	Clear bool

	limitFlags teamedit.LimitFlags
	limits     teamedit.LimitsPatch
}

// Spec is what set-limits prints: a line for people, the Team as written for programs.
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "set-limits TEAM [--max-clusters N] [--max-nodes-per-cluster N] [--max-total-nodes N] [--max-cpu Q] [--max-memory Q] [--max-storage Q] | --clear",
		Short: "Change a team's resource limits (platform admins only)",
		Long: `Change a team's spec.resourceLimits. Only the limits given change; the others, and the
rest of the team, stay as they are. --clear removes resourceLimits altogether (no limits).

Counts must be 0 or more (maxClusters 0 blocks every cluster create); CPU, memory and storage
are Kubernetes quantities such as 64, 256Gi or 2Ti.

Only platform admins may change resourceLimits: the change is checked against the server's
Team rules first, and a denial prints the server's message and exits 4. Working on manifests,
the team's file is edited in place, keeping its comments and layout.`,
		Example: `  butleradm team set-limits payments --max-clusters 30 --max-memory 1Ti --manifests gitops/ --as olivia@example.com
  butleradm team set-limits payments --clear`,
		Args: cmdutil.ExactArgs(1, "a TEAM name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Team = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.limitFlags.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&o.Clear, "clear", false, "Remove resourceLimits (no limits at all)")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete checks -o and the limits, and that they make one change.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	var err error
	if o.limits, err = o.limitFlags.Parse(cmd.Flags()); err != nil {
		return err
	}
	if o.Clear && !o.limits.Empty() {
		return cmdutil.UsageError("--clear removes every limit; it cannot be combined with --%s", strings.Join(changed(cmd), ", --"))
	}
	if !o.Clear && o.limits.Empty() {
		return cmdutil.UsageError("nothing to change: pass --%s, or --clear", strings.Join(teamedit.LimitFlagNames, ", --"))
	}
	return nil
}

func changed(cmd *cobra.Command) []string {
	var names []string
	for _, n := range teamedit.LimitFlagNames {
		if cmdutil.IsSet(cmd.Flags(), n) {
			names = append(names, n)
		}
	}
	return names
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	a, err := teamedit.Edit(ctx, s, o.Team, func(old *v1alpha1.Team) (*v1alpha1.Team, error) {
		updated := old.DeepCopy()
		if o.Clear {
			updated.Spec.ResourceLimits = nil
		} else {
			if updated.Spec.ResourceLimits == nil {
				updated.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{}
			}
			o.limits.ApplyTo(updated.Spec.ResourceLimits)
		}
		// Compared as the server compares them (reflect.DeepEqual): a re-spelled quantity
		// (1024Mi written as 1Gi) is a change.
		if reflect.DeepEqual(old.Spec.ResourceLimits, updated.Spec.ResourceLimits) {
			// Nothing to write; the rules are still checked, as the command always did.
			if _, err := teamedit.Admit(ctx, s, policy.Update, old, updated); err != nil {
				return nil, err
			}
			return nil, nil
		}
		return updated, nil
	})
	if err != nil {
		return err
	}
	teamedit.WarnBelowUsage(ctx, s, a, o.IO.ErrOut)
	what := teamedit.ResourceName(a.Old.Name)
	verb, res, updated := "unchanged", a.Result, a.Updated
	if updated != nil {
		verb = "limits updated"
	} else {
		updated = a.Old
	}
	return o.Printer.Done(teamview.Object(updated), what+" "+verb, store.Where(res, s))
}
