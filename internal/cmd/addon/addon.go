// Package addon groups the addon commands: the named addons (TenantAddons) of a cluster.
package addon

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/install"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon/uninstall"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
)

// NewCmd returns `addon`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "addon",
		Aliases: []string{"addons"},
		Short:   "List, install and uninstall a cluster's named addons (TenantAddons)",
	}
	cmd.AddCommand(list.NewCmd(f, nil), install.NewCmd(f, nil), uninstall.NewCmd(f, nil))
	return cmd
}
