// Package network is `butleradm network`: NetworkPools, the address ranges tenant clusters
// draw from, with their IPAllocations.
package network

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network/list"
)

// NewCmd returns `network` with list, get and delete.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "network",
		Aliases: []string{"networkpool", "networkpools", "np"},
		Short:   "Manage NetworkPools and see their IPAllocations",
		Long: `Manage NetworkPools: the IPv4 ranges Butler hands out to tenant clusters, and the
IPAllocations drawn from them. A pool is deleted only when no IPAllocation of it is
Allocated, as Butler's NetworkPool webhook decides (checked before anything is sent).
Works on a live cluster or on manifests (--manifests DIR).`,
	}
	cmd.AddCommand(list.NewCmd(f, nil), get.NewCmd(f, nil), delete.NewCmd(f, nil))
	return cmd
}
