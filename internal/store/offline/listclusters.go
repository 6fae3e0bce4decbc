package offline

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// This file lists and gets clusters: copies of the set's Clusters, each whole (read again
// from its document when the load kept a record of it).

// ListClusters implements store.Store. A cluster written without a namespace is taken to
// live in its team's namespace, as it would once applied to the team namespace.
func (s *Store) ListClusters(_ context.Context, namespace string) ([]v1alpha1.TenantCluster, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Filtered and sorted before the copy, which is made once into a slice of the right
	// size: team list asks once per team, and a tree holds thousands of clusters.
	found := s.clusters(namespace, "")
	out := make([]v1alpha1.TenantCluster, len(found))
	return out, s.copyAll(found, out)
}

// ListClusterPages gives the clusters ListClusters lists, in its order, a page at a time:
// a command that keeps less than each cluster whole (a table's rows) then never holds
// them all.
func (s *Store) ListClusterPages(_ context.Context, namespace string, fn func([]v1alpha1.TenantCluster) error) error {
	const pageSize = 256
	s.mu.RLock()
	defer s.mu.RUnlock()
	found := s.clusters(namespace, "")
	for len(found) > 0 {
		n := min(pageSize, len(found))
		page := make([]v1alpha1.TenantCluster, n)
		if err := s.copyAll(found[:n], page); err != nil {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		found = found[n:]
	}
	return nil
}

// copyAll copies found into out, each whole (the set's Clusters read ahead on every core
// those the load kept as records), its namespace filled in.
func (s *Store) copyAll(found []nsCluster, out []v1alpha1.TenantCluster) error {
	idx := make([]int, len(found))
	for k, f := range found {
		idx[k] = f.i
	}
	k := 0
	return s.set.Clusters.EachOf(idx, func(i int, o manifest.Object, err error) error {
		if err != nil {
			return storeerr.BadInput(err)
		}
		if tc := o.Obj.(*v1alpha1.TenantCluster); s.set.Clusters.Held(i) {
			tc.DeepCopyInto(&out[k]) // the set's own
		} else {
			out[k] = *tc // read again: the caller's already
		}
		out[k].Namespace = found[k].ns
		k++
		return nil
	})
}

// nsCluster is a cluster of the set (its index in Clusters) and the namespace it lives in.
type nsCluster struct {
	i        int
	name, ns string
}

// clusters are the set's clusters in namespace (all when empty), of that name when name is
// not empty, sorted by namespace and name. The caller holds s.mu.
func (s *Store) clusters(namespace, name string) []nsCluster {
	var out []nsCluster
	var teams map[string]*v1alpha1.Team
	cs := &s.set.Clusters
	for i := range cs.Len() {
		c := cs.At(i)
		if name != "" && c.Name != name {
			continue
		}
		ns := c.Namespace
		if ns == "" {
			if teams == nil {
				teams = s.teamsByName()
			}
			ns = c.Place(teams[c.Team])
		}
		if namespace != "" && ns != namespace {
			continue
		}
		out = append(out, nsCluster{i, c.Name, ns})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ns != out[j].ns {
			return out[i].ns < out[j].ns
		}
		return out[i].name < out[j].name
	})
	return out
}

// GetCluster implements store.Store: the first cluster of that name in the order
// ListClusters gives, copied alone.
func (s *Store) GetCluster(_ context.Context, namespace, name string) (*v1alpha1.TenantCluster, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if found := s.clusters(namespace, name); len(found) > 0 {
		c := make([]v1alpha1.TenantCluster, 1)
		if err := s.copyAll(found[:1], c); err != nil {
			return nil, err
		}
		return &c[0], nil
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), name)
}
