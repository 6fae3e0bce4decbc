// Package cluster groups the tenant cluster commands of butlerctl.
package cluster

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/create"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// NewCmd returns `cluster` with its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cluster",
		Aliases: []string{"clusters", "tc"},
		Short:   "Create, list and inspect tenant clusters",
	}
	cmd.AddCommand(create.NewCmd(f), list.NewCmd(f), get.NewCmd(f))
	return cmd
}
