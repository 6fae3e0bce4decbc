// Package shared is what the network commands share: reading a pool with its
// IPAllocations, the -n flag, and how a pool's tenant ranges are shown.
package shared

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Pool reads a NetworkPool and the IPAllocations drawn from it, as get and delete show and
// judge them.
func Pool(ctx context.Context, s store.Store, namespace, name string) (*v1alpha1.NetworkPool, []v1alpha1.IPAllocation, error) {
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

// NamespaceFlag is -n: the pools' namespace.
func NamespaceFlag(cmd *cobra.Command, ns *string) {
	cmd.Flags().StringVarP(ns, "namespace", "n", "", "Namespace of the pools (default: every namespace for list, butler-system otherwise)")
}

// RangesText is the tenant ranges as start-end, or "-" for the whole CIDR.
func RangesText(p *v1alpha1.NetworkPool) string {
	rs := p.Spec.TenantAllocation.EffectiveRanges()
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Start + "-" + r.End
	}
	return strings.Join(parts, ",")
}

func notFound(err error, name string) error {
	if cmdutil.CodeOfAPI(err) == cmdutil.ExitNotFound {
		return cmdutil.NotFoundError("NetworkPool %q not found", name)
	}
	return err
}
