package offline

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// ClusterCreationPolicies from the manifests; new ones go to DIR/policies/NAME.yaml.

var policiesResource = v1alpha1.Resource("clustercreationpolicies")

// ListClusterCreationPolicies implements store.Store.
func (s *Store) ListClusterCreationPolicies(context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := values(s.set.ClusterCreationPolicies())
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GetClusterCreationPolicy implements store.Store.
func (s *Store) GetClusterCreationPolicy(_ context.Context, name string) (*v1alpha1.ClusterCreationPolicy, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if p := s.set.ClusterCreationPolicy(name); p != nil {
		return p.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(policiesResource, name)
}

// CreateClusterCreationPolicy implements store.CreationPolicies.
func (s *Store) CreateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (store.Result, error) {
	if _, err := s.GetClusterCreationPolicy(ctx, p.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(policiesResource, p.Name)
	}
	file, err := s.target("policies", p.Name)
	if err != nil {
		return store.Result{}, err
	}
	if err := s.write([]manifest.Change{{File: file, Obj: p}}); err != nil {
		return store.Result{}, err
	}
	s.reload(file)
	return store.Result{Location: file}, nil
}

// UpdateClusterCreationPolicy implements store.CreationPolicies: the document is rewritten
// in place, keeping its comments and the file's other documents.
func (s *Store) UpdateClusterCreationPolicy(_ context.Context, p *v1alpha1.ClusterCreationPolicy) (store.Result, error) {
	s.mu.RLock()
	obj := s.set.Find(v1alpha1.KindClusterCreationPolicy, "", p.Name)
	var src manifest.Source
	if obj != nil {
		src = obj.Source
	}
	s.mu.RUnlock()
	if obj == nil {
		return store.Result{}, apierrors.NewNotFound(policiesResource, p.Name)
	}
	if src.File == manifest.Stdin {
		return store.Result{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: ClusterCreationPolicy %q came from stdin", p.Name)
	}
	if err := s.write([]manifest.Change{{Source: &src, Obj: p}}); err != nil {
		return store.Result{}, err
	}
	s.reload(src.File)
	return store.Result{Location: src.File}, nil
}

// DeleteClusterCreationPolicy implements store.CreationPolicies.
func (s *Store) DeleteClusterCreationPolicy(_ context.Context, name string) (store.Result, error) {
	s.mu.RLock()
	o := s.set.Find(v1alpha1.KindClusterCreationPolicy, "", name)
	var c manifest.Object
	if o != nil {
		c = *o
	}
	s.mu.RUnlock()
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(policiesResource, name)
	}
	return s.deleteDocument(&c, "ClusterCreationPolicy")
}
