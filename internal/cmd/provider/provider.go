// Package provider groups the butleradm commands that manage infrastructure providers:
// ProviderConfigs and the Secrets holding their credentials.
package provider

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/create"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/rotatecredentials"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/validate"
)

// NewCmd returns `provider`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "provider",
		Aliases: []string{"providers", "providerconfig", "providerconfigs"},
		Short:   "Manage infrastructure providers (ProviderConfigs) and their credentials",
		Long: `Manage infrastructure providers: the ProviderConfigs that tell Butler where and how to run
tenant clusters (Harvester, Nutanix, Proxmox, Azure, AWS, GCP), with their credentials,
scope, networking and limits.

Every ProviderConfig is checked before it is written, with the server's messages; the
credentials are read from files or standard input, checked for the keys the provider needs,
and never printed. Works on a live cluster or on manifests (--manifests DIR).`,
	}
	// Note the flags typed on the command line before the configuration fills the others:
	// a default team from the config file must not turn a provider team-scoped.
	cmd.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		providerutil.RecordCommandLine(c)
		if pre := c.Root().PersistentPreRunE; pre != nil {
			return pre(c, args)
		}
		return nil
	}
	cmd.AddCommand(create.NewCmd(f, nil), list.NewCmd(f, nil), get.NewCmd(f, nil), validate.NewCmd(f, nil),
		delete.NewCmd(f, nil), rotatecredentials.NewCmd(f, nil))
	return cmd
}
