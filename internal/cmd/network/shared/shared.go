// Package shared is what the network commands share: reading a pool with its
// IPAllocations, the -n flag, and how a pool's tenant ranges are shown.
package shared

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Pools is what reading a pool with its IPAllocations needs (of store.Networks).
type Pools interface {
	GetNetworkPool(ctx context.Context, namespace, name string) (*v1alpha1.NetworkPool, error)
	ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error)
}

// PoolOptions are what get and delete act on, embedded in their Options: one pool, by
// name and namespace (-n, butler-system by default), with the command's dependencies.
type PoolOptions[S Pools] struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[S]

	Name      string
	Namespace string
}

// Complete takes from the Factory what run needs, -n defaulting to butler-system; it
// reads nothing yet.
func (o *PoolOptions[S]) CompleteShared(f *factory.Factory, cmd *cobra.Command, args []string) error {
	if o.Namespace == "" {
		o.Namespace = v1alpha1.DefaultProviderNamespace
	}
	return nil
}

// Pool opens the store and reads the pool with its IPAllocations; the store is returned
// for what the command does next.
func (o *PoolOptions[S]) Pool(ctx context.Context) (S, *v1alpha1.NetworkPool, []v1alpha1.IPAllocation, error) {
	s, err := o.Store(ctx)
	if err != nil {
		return s, nil, nil, err
	}
	p, allocs, err := Pool(ctx, s, o.Namespace, o.Name)
	return s, p, allocs, err
}

// Pool reads a NetworkPool and the IPAllocations drawn from it, as get and delete show and
// judge them.
func Pool(ctx context.Context, s Pools, namespace, name string) (*v1alpha1.NetworkPool, []v1alpha1.IPAllocation, error) {
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
