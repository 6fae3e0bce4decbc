package offline

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// This file implements store.ClusterWriter on manifests: in-place edits of a
// TenantCluster's document.

// findCluster is the TenantCluster document of that namespace and name (or one that
// leaves the namespace out), nil when there is none. The caller holds s.mu.
func (s *Store) findCluster(namespace, name string) (*manifest.Object, *v1alpha1.TenantCluster) {
	o := s.set.Find(v1alpha1.KindTenantCluster, namespace, name)
	if o == nil {
		return nil, nil
	}
	c, ok := o.Obj.(*v1alpha1.TenantCluster)
	if !ok {
		return nil, nil
	}
	return o, c
}

// ScaleCluster implements store.ClusterWriter with an in-place edit of the cluster's
// document: only spec.workers.replicas changes; comments, the other keys and the other
// documents stay byte for byte. Optimistic concurrency, as live: when the document's spec
// is no longer c's (another write of this process changed it), the answer is a Conflict
// and nothing is written.
func (s *Store) ScaleCluster(_ context.Context, c *v1alpha1.TenantCluster, replicas int32) (*v1alpha1.TenantCluster, store.Result, error) {
	return s.editClusterSpec(c, func(spec *v1alpha1.TenantClusterSpec) { spec.Workers.Replicas = replicas })
}

// UpgradeCluster implements store.ClusterUpgrader as ScaleCluster does: only
// spec.kubernetesVersion changes, in place.
func (s *Store) UpgradeCluster(_ context.Context, c *v1alpha1.TenantCluster, version string) (*v1alpha1.TenantCluster, store.Result, error) {
	return s.editClusterSpec(c, func(spec *v1alpha1.TenantClusterSpec) { spec.KubernetesVersion = version })
}

// EditCluster implements store.ClusterUpgrader as ScaleCluster does: the spec becomes
// spec, in place.
func (s *Store) EditCluster(_ context.Context, c *v1alpha1.TenantCluster, spec v1alpha1.TenantClusterSpec) (*v1alpha1.TenantCluster, store.Result, error) {
	return s.editClusterSpec(c, func(cur *v1alpha1.TenantClusterSpec) { *cur = *spec.DeepCopy() })
}

// editClusterSpec applies edit to the spec of c's document and writes it when that changed
// anything; a Conflict when the document's spec is no longer c's.
func (s *Store) editClusterSpec(c *v1alpha1.TenantCluster, edit func(*v1alpha1.TenantClusterSpec)) (*v1alpha1.TenantCluster, store.Result, error) {
	if s.lean {
		return nil, store.Result{}, errReadOnly
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, cur := s.findCluster(c.Namespace, c.Name)
	if o == nil {
		return nil, store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), c.Name)
	}
	if !equality.Semantic.DeepEqual(cur.Spec, c.Spec) {
		return nil, store.Result{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name, errConflict)
	}
	src := o.Source
	res := store.Result{Location: src.File}
	updated := cur.DeepCopy()
	edit(&updated.Spec)
	if !equality.Semantic.DeepEqual(cur.Spec, updated.Spec) {
		if src.File == manifest.Stdin {
			return nil, store.Result{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: tenantcluster %q came from stdin", c.Name)
		}
		if err := s.write([]manifest.Change{{Source: &src, Obj: updated}}); err != nil {
			return nil, store.Result{}, err
		}
		o.Obj = updated
	}
	out := updated.DeepCopy()
	if out.Namespace == "" {
		out.Namespace = c.Namespace
	}
	return out, res, nil
}

// DeleteCluster implements store.ClusterWriter: the cluster's document is removed from its
// file, and the file once nothing but comments is left in it.
func (s *Store) DeleteCluster(_ context.Context, c *v1alpha1.TenantCluster) (store.Result, error) {
	if s.lean {
		return store.Result{}, errReadOnly
	}
	s.mu.RLock()
	o, _ := s.findCluster(c.Namespace, c.Name)
	var doc manifest.Object
	if o != nil {
		doc = *o
	}
	s.mu.RUnlock()
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), c.Name)
	}
	return s.deleteDocument(&doc, "tenantcluster")
}

var (
	_ store.ClusterWriter   = (*Store)(nil)
	_ store.ClusterUpgrader = (*Store)(nil)
)
