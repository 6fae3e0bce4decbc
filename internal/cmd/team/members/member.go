package members

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// NewMemberCmd returns `team member` with add, remove and set-role; runF, when not nil, runs
// instead of run.
func NewMemberCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "member",
		Aliases: []string{"members"},
		Short:   "Add, remove or re-role a team's members (spec.access.users)",
	}
	add := NewVerbCmd(f, Verb{"add TEAM EMAIL ROLE", "Add a member to a team with a role (admin, operator or viewer)",
		`Add a user, by e-mail, to the team's spec.access.users with a role: admin, operator or
viewer. The e-mail is trimmed and lower-cased, the form the server compares. Adding a member
who is already there with the same role changes nothing; with another role it is refused
(exit 2): use set-role.`,
		`  butleradm team member add payments dave@example.com viewer
  butleradm team member add payments dave@example.com operator --manifests gitops/ --as alice@example.com`,
		3, userArgs(teamedit.VerbAdd)}, runF)
	remove := NewVerbCmd(f, Verb{"remove TEAM EMAIL", "Remove a member from a team",
		`Remove a user's entry from the team's spec.access.users (exit 3 when there is none). Groups
the user belongs to keep their entries.`,
		`  butleradm team member remove payments dave@example.com`,
		2, userArgs(teamedit.VerbRemove)}, runF)
	setRole := NewVerbCmd(f, Verb{"set-role TEAM EMAIL ROLE", "Change a member's role in a team",
		`Change the role of a user already in the team's spec.access.users (exit 3 when there is
none). The same role again changes nothing.`,
		`  butleradm team member set-role payments carol@example.com admin`,
		3, userArgs(teamedit.VerbSetRole)}, runF)
	remove.Aliases = []string{"rm"}
	cmd.AddCommand(add, remove, setRole)
	return cmd
}

func userArgs(verb string) func(o *Options, cmd *cobra.Command, args []string) error {
	return func(o *Options, _ *cobra.Command, args []string) error {
		var role v1alpha1.TeamRole
		if verb != teamedit.VerbRemove {
			var err error
			if role, err = teamedit.ParseRole(args[2]); err != nil {
				return err
			}
		}
		u, err := teamedit.MemberGrant(args[1], role)
		if err != nil {
			return err
		}
		o.Change = teamedit.MemberChange{Verb: verb, User: u}
		return nil
	}
}
