package live_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// PageClusters sends the selector to the server and hands over each page as it arrives:
// 1,200 clusters, a third of them in dev, listed with environment=dev: the dev ones
// only, in order, with every request carrying the selector and the page size.
func TestPageClustersSelectsOnTheServer(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	const ns, n = "paged", 1200
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	names := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range names {
				c := cluster(ns, fmt.Sprintf("c-%04d", i))
				if i%3 == 0 {
					c.Labels[v1alpha1.LabelEnvironment] = "dev"
				}
				if err := env.Client.Create(ctx, c); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		names <- i
	}
	close(names)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	const sel = v1alpha1.LabelEnvironment + "=dev"
	var requests int
	cfg := env.UserConfig("admin")
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tenantclusters") {
				requests++
				q := r.URL.Query()
				if q.Get("labelSelector") != sel || q.Get("limit") != fmt.Sprint(live.PageSize) {
					t.Errorf("list request %s: want labelSelector=%s limit=%d", r.URL.RawQuery, sel, live.PageSize)
				}
			}
			return rt.RoundTrip(r)
		})
	}
	s, err := live.NewForConfig(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []v1alpha1.TenantCluster
	var pages int
	err = s.PageClusters(ctx, ns, sel, func(page []v1alpha1.TenantCluster, restart bool) error {
		if restart {
			t.Error("restarted on a fresh list")
		}
		pages++
		got = append(got, page...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n/3 {
		t.Fatalf("listed %d clusters, want %d", len(got), n/3)
	}
	for i, c := range got {
		if want := fmt.Sprintf("c-%04d", i*3); c.Name != want || c.Kind != v1alpha1.KindTenantCluster || c.ManagedFields != nil {
			t.Fatalf("item %d is %s %q, want a clean %q", i, c.Kind, c.Name, want)
		}
	}
	if pages < 1 || requests != pages {
		t.Errorf("%d pages from %d requests", pages, requests)
	}
}
