package storetest

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ListNetworkPools implements store.Store.
func (s *Store) ListNetworkPools(_ context.Context, ns string) ([]v1alpha1.NetworkPool, error) {
	var out []v1alpha1.NetworkPool
	for _, p := range s.NetworkPools {
		if ns == "" || p.Namespace == ns {
			out = append(out, *p.DeepCopy())
		}
	}
	return out, nil
}

// GetNetworkPool implements store.Store.
func (s *Store) GetNetworkPool(_ context.Context, ns, name string) (*v1alpha1.NetworkPool, error) {
	for i := range s.NetworkPools {
		if s.NetworkPools[i].Namespace == ns && s.NetworkPools[i].Name == name {
			return s.NetworkPools[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("networkpools"), name)
}

// ListIPAllocations implements store.Store: the allocations labelled with the pool.
func (s *Store) ListIPAllocations(_ context.Context, pool string) ([]v1alpha1.IPAllocation, error) {
	var out []v1alpha1.IPAllocation
	for _, a := range s.IPAllocations {
		if a.Labels[v1alpha1.LabelNetworkPool] == pool {
			out = append(out, *a.DeepCopy())
		}
	}
	return out, nil
}

// DeleteNetworkPool implements store.Store.
func (s *Store) DeleteNetworkPool(_ context.Context, ns, name string) (store.Result, error) {
	for i, p := range s.NetworkPools {
		if p.Namespace == ns && p.Name == name {
			s.NetworkPools = append(s.NetworkPools[:i], s.NetworkPools[i+1:]...)
			s.Deleted = append(s.Deleted, "NetworkPool "+ns+"/"+name)
			return store.Result{Location: "networkpools/" + name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("networkpools"), name)
}
