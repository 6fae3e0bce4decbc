package live

import (
	"context"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/internal/apipager"
	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file is the NetworkPools and IPAllocations of the API server (store.Networks).

// ListNetworkPools lists the pools of namespace ("" for every one), by namespace and name.
func (s *Store) ListNetworkPools(ctx context.Context, namespace string) ([]v1alpha1.NetworkPool, error) {
	items, err := listAll(ctx, s, namespace, "networkpools", func(l *v1alpha1.NetworkPoolList) []v1alpha1.NetworkPool { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindNetworkPool)
	}
	sort.Slice(items, func(i, j int) bool { return less(&items[i].ObjectMeta, &items[j].ObjectMeta) })
	return items, err
}

// GetNetworkPool reads one pool; NotFound when there is none.
func (s *Store) GetNetworkPool(ctx context.Context, namespace, name string) (*v1alpha1.NetworkPool, error) {
	p := &v1alpha1.NetworkPool{}
	if err := s.get(ctx, namespace, "networkpools", name, p); err != nil {
		return nil, err
	}
	clean(&p.TypeMeta, &p.ObjectMeta, v1alpha1.KindNetworkPool)
	return p, nil
}

// ListIPAllocations lists the IPAllocations labelled with the pool, in every namespace,
// with the label selector sent to the server.
func (s *Store) ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error) {
	var out []v1alpha1.IPAllocation
	sel := labels.SelectorFromSet(labels.Set{v1alpha1.LabelNetworkPool: pool}).String()
	err := apipager.Pages(ctx, s.butler.Interface, s.butler.Params,
		apipager.Request{PageSize: butlerclient.PageSize, Resource: "ipallocations", LabelSelector: sel},
		func(l *v1alpha1.IPAllocationList) []v1alpha1.IPAllocation { return l.Items },
		func(page []v1alpha1.IPAllocation, restart bool) error {
			if restart {
				out = nil
			}
			out = append(out, page...)
			return nil
		})
	if err != nil {
		return nil, apiError(err)
	}
	return out, nil
}

// DeleteNetworkPool deletes a pool; the server's webhook, if any, decides too.
func (s *Store) DeleteNetworkPool(ctx context.Context, namespace, name string) (store.Result, error) {
	if err := s.butler.Delete().Namespace(namespace).Resource("networkpools").Name(name).Do(ctx).Error(); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

var _ store.Networks = (*Store)(nil)
