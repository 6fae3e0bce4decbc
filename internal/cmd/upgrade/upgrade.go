// Package upgrade groups the commands about Kubernetes versions across clusters; one
// cluster's upgrade is `cluster upgrade`.
package upgrade

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/upgrade/plan"
)

// NewCmd returns `upgrade`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Find the tenant clusters whose Kubernetes version needs an upgrade",
	}
	cmd.AddCommand(plan.NewCmd(f, nil))
	return cmd
}
