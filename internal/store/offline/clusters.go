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
// leaves the namespace out), whole; a nil cluster when there is none, an error when it
// cannot be read again. The object is the set's: the caller copies what it changes. The
// caller holds s.mu.
func (s *Store) findCluster(namespace, name string) (manifest.Object, *v1alpha1.TenantCluster, error) {
	i := s.set.Clusters.Find(namespace, name)
	if i < 0 {
		return manifest.Object{}, nil, nil
	}
	o, err := s.set.Clusters.Get(i)
	if err != nil {
		return manifest.Object{}, nil, storeerr.BadInput(err)
	}
	return o, o.Obj.(*v1alpha1.TenantCluster), nil
}

// written takes the edit of cluster o (now updated) into the set: the file read again once
// written, or under --dry-run, which writes nothing, the object in memory.
func (s *Store) written(o manifest.Object, updated *v1alpha1.TenantCluster) {
	if !s.dryRun {
		s.reloadHeld(o.Source.File)
		return
	}
	if i := s.set.Clusters.Find(o.Namespace, o.Name); i >= 0 {
		o.Obj = updated
		s.set.Clusters.Put(i, o)
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	o, cur, err := s.findCluster(c.Namespace, c.Name)
	if err != nil {
		return nil, store.Result{}, err
	}
	if cur == nil {
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
		s.written(o, updated)
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
	s.mu.RLock()
	doc, cur, err := s.findCluster(c.Namespace, c.Name)
	s.mu.RUnlock()
	if err != nil {
		return store.Result{}, err
	}
	if cur == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), c.Name)
	}
	return s.deleteDocument(&doc, "tenantcluster")
}

var (
	_ store.ClusterWriter   = (*Store)(nil)
	_ store.ClusterUpgrader = (*Store)(nil)
)
