// Package network is `butleradm network`: NetworkPools, the address ranges tenant clusters
// draw from, with their IPAllocations. Each command is gh's shape: NewXCmd(f, runF),
// Options carrying what it needs, Complete, Validate, run.
package network

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
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

// pool reads a NetworkPool and the IPAllocations drawn from it, as get and delete show and
// judge them.
func pool(ctx context.Context, s store.Store, namespace, name string) (*v1alpha1.NetworkPool, []v1alpha1.IPAllocation, error) {
	p, err := s.GetNetworkPool(ctx, namespace, name)
	if err != nil {
		return nil, nil, notFound(err, name)
	}
	allocs, err := s.ListIPAllocations(ctx, p.Name)
	if err != nil {
		return nil, nil, err
	}
	return p, allocs, nil
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
