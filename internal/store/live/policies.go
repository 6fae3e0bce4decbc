package live

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ClusterCreationPolicies through the Butler REST client (cluster-scoped).

const policiesResource = "clustercreationpolicies"

// ListClusterCreationPolicies implements store.Store. A 404 on the collection means the
// server does not serve the resource (the CRD is not installed): no policies, as the
// server's webhook takes it.
func (s *Store) ListClusterCreationPolicies(ctx context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	items, err := listAll(ctx, s, "", policiesResource, func(l *v1alpha1.ClusterCreationPolicyList) []v1alpha1.ClusterCreationPolicy { return l.Items })
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindClusterCreationPolicy)
	}
	return items, nil
}

// GetClusterCreationPolicy implements store.Store.
func (s *Store) GetClusterCreationPolicy(ctx context.Context, name string) (*v1alpha1.ClusterCreationPolicy, error) {
	p := &v1alpha1.ClusterCreationPolicy{}
	if err := s.get(ctx, "", policiesResource, name, p); err != nil {
		return nil, err
	}
	clean(&p.TypeMeta, &p.ObjectMeta, v1alpha1.KindClusterCreationPolicy)
	return p, nil
}

// CreateClusterCreationPolicy implements store.CreationPolicies.
func (s *Store) CreateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (store.Result, error) {
	if err := s.create(ctx, "", policiesResource, p); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: s.Host()}, nil
}

// UpdateClusterCreationPolicy implements store.CreationPolicies: a PUT of the whole object
// with its resourceVersion, so a concurrent change is a Conflict.
func (s *Store) UpdateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (store.Result, error) {
	out := &v1alpha1.ClusterCreationPolicy{}
	if err := s.butler.Put().Resource(policiesResource).Name(p.Name).Body(p).Do(ctx).Into(out); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

// DeleteClusterCreationPolicy implements store.CreationPolicies.
func (s *Store) DeleteClusterCreationPolicy(ctx context.Context, name string) (store.Result, error) {
	if err := s.butler.Delete().Resource(policiesResource).Name(name).Do(ctx).Error(); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}
