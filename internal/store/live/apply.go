package live

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ApplyClusters implements store.ClusterApplier: one server-side apply patch per cluster,
// o.Concurrency at a time. The client's rate limiter (DefaultQPS, DefaultBurst) paces
// them, and each request has the store's deadline.
func (s *Store) ApplyClusters(ctx context.Context, clusters []*v1alpha1.TenantCluster, o store.ApplyOptions) ([]store.Applied, error) {
	out := make([]store.Applied, len(clusters))
	workers := max(o.Concurrency, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(clusters)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = s.applyCluster(ctx, clusters[i], o)
				if o.Done != nil {
					o.Done()
				}
			}
		}()
	}
	for i := range clusters {
		select {
		case next <- i:
		case <-ctx.Done():
			for j := i; j < len(clusters); j++ {
				out[j].Err = ctx.Err()
			}
			close(next)
			wg.Wait()
			return out, nil
		}
	}
	close(next)
	wg.Wait()
	return out, nil
}

// applyCluster sends one apply patch and keeps the server's answer.
func (s *Store) applyCluster(ctx context.Context, c *v1alpha1.TenantCluster, o store.ApplyOptions) store.Applied {
	body, err := store.ApplyBody(c)
	if err != nil {
		return store.Applied{Err: err}
	}
	req := s.butler.Patch(types.ApplyPatchType).Namespace(c.Namespace).Resource("tenantclusters").Name(c.Name).
		Param("fieldManager", o.FieldManager).Body(body)
	if o.Force {
		req = req.Param("force", "true")
	}
	if o.DryRun {
		req = req.Param("dryRun", metav1.DryRunAll)
	}
	got := &v1alpha1.TenantCluster{}
	if err := req.Do(ctx).Into(got); err != nil {
		return store.Applied{Err: apiError(err)}
	}
	clean(&got.TypeMeta, &got.ObjectMeta, v1alpha1.KindTenantCluster)
	return store.Applied{Object: got, Location: s.Host()}
}
