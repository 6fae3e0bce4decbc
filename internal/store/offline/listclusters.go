package offline

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sort"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// This file lists and gets clusters: copies of the set's, or for a store loaded lean
// (manifest.Options.Lean) each read again from its document.

// ListClusters implements store.Store. A cluster written without a namespace is taken to
// live in its team's namespace, as it would once applied to the team namespace.
func (s *Store) ListClusters(_ context.Context, namespace string) ([]v1alpha1.TenantCluster, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Filtered and sorted before the copy, which is made once into a slice of the right
	// size: team list asks once per team, and a tree holds thousands of clusters.
	found := s.clusters(namespace, "")
	out := make([]v1alpha1.TenantCluster, len(found))
	return out, copyAll(found, out)
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
		if err := copyAll(found[:n], page); err != nil {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		found = found[n:]
	}
	return nil
}

// copyAll copies found into out, on every core when there are records to read again.
func copyAll(found []nsCluster, out []v1alpha1.TenantCluster) error {
	workers := 1
	if len(found) >= 64 && slices.ContainsFunc(found, func(f nsCluster) bool { return f.o.Record != nil }) {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(found); i += workers {
				if err := found[i].copyInto(&out[i]); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// nsCluster is a cluster of the set and the namespace it is taken to live in.
type nsCluster struct {
	o  *manifest.Object
	ns string
}

// copyInto fills c with a copy of the cluster, its namespace filled in: a deep copy of the
// set's object, or for a record of a lean load (manifest.Options.Lean) the object read
// again, which is the caller's already.
func (f nsCluster) copyInto(c *v1alpha1.TenantCluster) error {
	if tc, ok := f.o.Obj.(*v1alpha1.TenantCluster); ok {
		tc.DeepCopyInto(c)
	} else {
		full, err := f.o.Full()
		if err != nil {
			return storeerr.BadInput(err)
		}
		*c = *full.Obj.(*v1alpha1.TenantCluster)
	}
	c.Namespace = f.ns
	return nil
}

// clusters are the set's clusters in namespace (all when empty), of that name when name is
// not empty, sorted by namespace and name. The caller holds s.mu.
func (s *Store) clusters(namespace, name string) []nsCluster {
	var out []nsCluster
	var nsOf map[string]string
	for i := range s.set.Objects {
		o := &s.set.Objects[i]
		ns, team, ok := o.ClusterPlace()
		if !ok || (name != "" && o.Name != name) {
			continue
		}
		if ns == "" {
			if nsOf == nil {
				nsOf = s.teamNamespaces()
			}
			var found bool
			if ns, found = nsOf[team]; !found {
				ns = team
			}
		}
		if namespace != "" && ns != namespace {
			continue
		}
		out = append(out, nsCluster{o, ns})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ns != out[j].ns {
			return out[i].ns < out[j].ns
		}
		return out[i].o.Name < out[j].o.Name
	})
	return out
}

// GetCluster implements store.Store: the first cluster of that name in the order
// ListClusters gives, copied alone.
func (s *Store) GetCluster(_ context.Context, namespace, name string) (*v1alpha1.TenantCluster, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if found := s.clusters(namespace, name); len(found) > 0 {
		c := &v1alpha1.TenantCluster{}
		if err := found[0].copyInto(c); err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), name)
}
