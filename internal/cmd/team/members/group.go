package members

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// NewGroupCmd returns `team group` with add, remove and set-role; runF, when not nil, runs
// instead of run.
func NewGroupCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "group",
		Aliases: []string{"groups"},
		Short:   "Add, remove or re-role a team's groups (spec.access.groups)",
	}
	const idpNote = `
An entry is its group name (kept as typed: the server compares group names exactly) and its
--identity-provider, if any: the same group name under two identity providers is two
entries.`
	add := NewVerbCmd(f, Verb{"add TEAM GROUP ROLE [--identity-provider P]", "Add a group to a team with a role",
		`Add a group to the team's spec.access.groups with a role: admin, operator or viewer.
Adding a group that is already there with the same role changes nothing; with another role
it is refused (exit 2): use set-role.` + idpNote,
		`  butleradm team group add payments payments-oncall operator
  butleradm team group add payments "CN=Payments,OU=Groups,DC=corp" viewer --identity-provider corp-ad`,
		3, groupArgs(teamedit.VerbAdd)}, runF)
	remove := NewVerbCmd(f, Verb{"remove TEAM GROUP [--identity-provider P]", "Remove a group from a team",
		`Remove a group's entry from the team's spec.access.groups (exit 3 when there is none).` + idpNote,
		`  butleradm team group remove payments payments-oncall`,
		2, groupArgs(teamedit.VerbRemove)}, runF)
	setRole := NewVerbCmd(f, Verb{"set-role TEAM GROUP ROLE [--identity-provider P]", "Change a group's role in a team",
		`Change the role of a group already in the team's spec.access.groups (exit 3 when there is
none). The same role again changes nothing.` + idpNote,
		`  butleradm team group set-role payments payments-oncall admin`,
		3, groupArgs(teamedit.VerbSetRole)}, runF)
	remove.Aliases = []string{"rm"}
	for _, c := range []*cobra.Command{add, remove, setRole} {
		c.Flags().String("identity-provider", "", "The identity provider the group comes from (part of the entry)")
	}
	cmd.AddCommand(add, remove, setRole)
	return cmd
}

func groupArgs(verb string) func(o *Options, cmd *cobra.Command, args []string) error {
	return func(o *Options, cmd *cobra.Command, args []string) error {
		var role v1alpha1.TeamRole
		if verb != teamedit.VerbRemove {
			var err error
			if role, err = teamedit.ParseRole(args[2]); err != nil {
				return err
			}
		}
		idp, _ := cmd.Flags().GetString("identity-provider")
		g, err := teamedit.GroupGrantOf(args[1], role, idp)
		if err != nil {
			return err
		}
		o.Change = teamedit.MemberChange{Verb: verb, Group: g}
		return nil
	}
}
