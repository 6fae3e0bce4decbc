package offline

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file is the NetworkPools and IPAllocations of the manifests (store.Networks).

// ListNetworkPools lists the pools of namespace ("" for every one), by namespace and name.
func (s *Store) ListNetworkPools(_ context.Context, namespace string) ([]v1alpha1.NetworkPool, error) {
	s.mu.RLock()
	all := values(s.set.NetworkPools())
	s.mu.RUnlock()
	out := all[:0]
	for _, p := range all {
		if namespace == "" || p.Namespace == namespace {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// GetNetworkPool reads one pool; NotFound when there is none.
func (s *Store) GetNetworkPool(ctx context.Context, namespace, name string) (*v1alpha1.NetworkPool, error) {
	pools, _ := s.ListNetworkPools(ctx, namespace)
	for i := range pools {
		if pools[i].Name == name {
			return &pools[i], nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("networkpools"), name)
}

// ListIPAllocations lists the IPAllocations labelled with the pool, in every namespace.
func (s *Store) ListIPAllocations(_ context.Context, pool string) ([]v1alpha1.IPAllocation, error) {
	s.mu.RLock()
	all := values(s.set.IPAllocations())
	s.mu.RUnlock()
	out := all[:0]
	for _, a := range all {
		if a.Labels[v1alpha1.LabelNetworkPool] == pool {
			out = append(out, a)
		}
	}
	return out, nil
}

// DeleteNetworkPool removes the pool's document (and its file once empty).
func (s *Store) DeleteNetworkPool(_ context.Context, namespace, name string) (store.Result, error) {
	s.mu.RLock()
	o := s.set.Find(v1alpha1.KindNetworkPool, namespace, name)
	s.mu.RUnlock()
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("networkpools"), name)
	}
	c := *o
	return s.deleteDocument(&c, "networkpool")
}

var _ store.Networks = (*Store)(nil)
