// Package user groups the commands about Butler's Users: who may sign in, and who is a
// platform admin.
package user

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/user/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/user/list"
)

// NewCmd returns `user`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "user",
		Aliases: []string{"users"},
		Short:   "List and show Butler users and their platform roles",
	}
	cmd.AddCommand(list.NewCmd(f, nil), get.NewCmd(f, nil))
	return cmd
}
