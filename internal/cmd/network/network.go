// Package network is `butleradm network`: NetworkPools, the address ranges tenant clusters
// draw from, with their IPAllocations. Each command is gh's shape: NewXCmd(f, runF),
// Options carrying what it needs, Complete, Validate, run.
package network

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
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
	cmd.AddCommand(NewListCmd(f, nil), NewGetCmd(f, nil), NewDeleteCmd(f, nil))
	return cmd
}

// namespaceFlag is -n: the pools' namespace, the configured one when not given.
func namespaceFlag(cmd *cobra.Command, ns *string) {
	cmd.Flags().StringVarP(ns, "namespace", "n", "", "Namespace of the pools (default: every namespace for list, butler-system otherwise)")
}

func notFound(err error, name string) error {
	if cmdutil.CodeOfAPI(err) == cmdutil.ExitNotFound {
		return cmdutil.NotFoundError("NetworkPool %q not found", name)
	}
	return err
}
