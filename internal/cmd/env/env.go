// Package env groups the environment commands; butleradm adds the ones that change them.
package env

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/create"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/migrate"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env/update"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
)

// NewCmd returns `env`; adm adds the verbs of butleradm.
func NewCmd(f *factory.Factory, adm bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "env",
		Aliases: []string{"environment", "environments"},
		Short:   "Show a team's environments: caps, defaults and access",
	}
	cmd.AddCommand(list.NewCmd(f, nil), get.NewCmd(f, nil))
	if adm {
		cmd.Short = "Manage a team's environments: limits, access and cluster defaults"
		cmd.AddCommand(create.NewCmd(f, nil), update.NewCmd(f, nil), delete.NewCmd(f, nil))
		cmd.AddCommand(migrate.NewCmd(f, nil))
	}
	return cmd
}
