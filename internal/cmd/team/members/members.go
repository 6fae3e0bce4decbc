// Package members is `butleradm team member add|remove|set-role` and `butleradm team group
// add|remove|set-role`: change one entry of a team's spec.access, checked against who may
// change a team's members, written as a patch with conflict retry live and as an in-place
// edit offline (internal/cmd/teamedit).
package members

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Spec is what every verb prints: a line for people, the Team as written for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what team member reads and writes: the team and the Team edit.
type Store = teamedit.Store

// Options are what one verb runs with: its arguments and flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Team string
	// Change is what the arguments ask for; Validate parses it.
	Change teamedit.MemberChange

	args  []string
	parse func(o *Options, cmd *cobra.Command, args []string) error
}

const authority = `Only the team's admins and platform admins may change its members and groups (exit 4
otherwise), and a change that would leave the team without any admin is refused unless a
platform admin makes it. Live, the server's RBAC must also let you update the Team; the
change is a patch carrying the resourceVersion that was read, retried on a conflict. On
manifests the team's file is edited in place, keeping its comments and layout.

Environment access may only name the team's own members and groups: removing a member an
environment still elevates is refused with the server's message; remove the environment
entry first (butleradm env update --access-user EMAIL:).`

// Verb is what tells one verb from another: its help, its argument count, and parse, which
// turns the positional arguments into the change.
type Verb struct {
	use, short, long, example string
	nargs                     int
	parse                     func(o *Options, cmd *cobra.Command, args []string) error
}

// NewVerbCmd returns one verb; runF, when not nil, runs instead of run.
func NewVerbCmd(f *factory.Factory, v Verb, runF func(*Options) error) *cobra.Command {
	o := &Options{parse: v.parse}
	cmd := &cobra.Command{
		Use:     v.use,
		Short:   v.short,
		Long:    v.long + "\n\n" + authority,
		Example: v.example,
		Args:    cmdutil.ExactArgs(v.nargs, argsWanted(v.use)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Team, o.args = args[0], args
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete checks -o and parses the change from the arguments before anything is read.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	return o.parse(o, cmd, o.args)
}

// argsWanted is the "TEAM EMAIL ROLE" part of a use line, for the argument count error.
func argsWanted(use string) string {
	for i := 0; i < len(use); i++ {
		if use[i] == ' ' {
			use = use[i+1:]
			break
		}
	}
	for i := 0; i+2 < len(use); i++ {
		if use[i] == ' ' && use[i+1] == '[' {
			return use[:i]
		}
	}
	return use
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	a, err := teamedit.ChangeMembers(ctx, s, o.Team, o.Change)
	if err != nil {
		return err
	}
	updated := a.Updated
	msg := teamedit.ResourceName(a.Old.Name) + " unchanged"
	if updated != nil {
		msg = teamedit.ResourceName(a.Old.Name) + " " + done(o.Change)
	} else {
		updated = a.Old
	}
	return o.Printer.Done(teamview.Object(updated), msg, store.Where(a.Result, s))
}

// done is what the human line says happened.
func done(c teamedit.MemberChange) string {
	role := v1alpha1.TeamRole("")
	if c.User != nil {
		role = c.User.Role
	} else {
		role = c.Group.Role
	}
	switch c.Verb {
	case teamedit.VerbAdd:
		return fmt.Sprintf("%s added as %s", c.Subject(), role)
	case teamedit.VerbRemove:
		return c.Subject() + " removed"
	}
	return fmt.Sprintf("%s is now %s", c.Subject(), role)
}
