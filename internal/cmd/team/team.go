// Package team groups the team commands; butleradm adds the ones that change teams.
package team

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team/access"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team/create"
	teamdelete "github.com/butlerdotdev/butler-toolkit/internal/cmd/team/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team/members"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team/setlimits"
)

// NewCmd returns `team`; adm adds the verbs of butleradm.
func NewCmd(f *factory.Factory, adm bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "team",
		Aliases: []string{"teams", "tm"},
		Short:   "Show teams: limits, usage, environments and access",
	}
	cmd.AddCommand(list.NewCmd(f, nil), get.NewCmd(f, nil), access.NewCmd(f, nil))
	if adm {
		cmd.Short = "Manage teams: create, set limits, members and groups, delete, inspect"
		cmd.AddCommand(create.NewCmd(f, nil), setlimits.NewCmd(f, nil), members.NewMemberCmd(f, nil), members.NewGroupCmd(f, nil), teamdelete.NewCmd(f, nil))
	}
	return cmd
}
