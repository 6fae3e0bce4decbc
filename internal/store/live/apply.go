package live

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ApplyClusters implements store.ClusterApplier: one server-side apply patch per cluster,
// o.Concurrency at a time, each with the store's deadline. The patches go through a client
// without client-side rate limit: o.Concurrency bounds the requests in flight and the
// server's priority and fairness paces them, as it paces kubectl apply, whose resource
// builder makes a client (and a fresh token bucket) per object; at DefaultQPS, 1,000
// objects would take 20 seconds of waiting on the client's own limiter.
func (s *Store) ApplyClusters(ctx context.Context, clusters []*v1alpha1.TenantCluster, o store.ApplyOptions) ([]store.Applied, error) {
	c, err := s.unthrottled()
	if err != nil {
		return nil, err
	}
	out := make([]store.Applied, len(clusters))
	workers := max(o.Concurrency, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(clusters)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = applyCluster(ctx, c, clusters[i], o)
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

// unthrottled is the Butler client without a client-side rate limit, made on first use.
func (s *Store) unthrottled() (*butlerclient.Client, error) {
	s.bulkOnce.Do(func() {
		cfg := rest.CopyConfig(s.config)
		cfg.QPS, cfg.Burst = -1, 0 // negative: no token bucket (client-go)
		s.bulk, s.bulkErr = butlerclient.New(cfg)
	})
	return s.bulk, s.bulkErr
}

// applyCluster sends one apply patch and keeps the server's answer.
func applyCluster(ctx context.Context, bc *butlerclient.Client, c *v1alpha1.TenantCluster, o store.ApplyOptions) store.Applied {
	body, err := store.ApplyBody(c)
	if err != nil {
		return store.Applied{Err: err}
	}
	req := bc.Patch(types.ApplyPatchType).Namespace(c.Namespace).Resource("tenantclusters").Name(c.Name).
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
	return store.Applied{Object: got}
}
