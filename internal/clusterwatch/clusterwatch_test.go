package clusterwatch_test

import (
	"context"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func tc(name, phase, rv string) *v1alpha1.TenantCluster {
	c := &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "payments", Name: name, ResourceVersion: rv}}
	c.Status.Phase = phase
	return c
}

func fast(t *testing.T) {
	poll, backoff := clusterwatch.PollInterval, clusterwatch.Backoff
	clusterwatch.PollInterval, clusterwatch.Backoff = 5*time.Millisecond, time.Millisecond
	t.Cleanup(func() { clusterwatch.PollInterval, clusterwatch.Backoff = poll, backoff })
}

// collector records what Run emits and stops it after want states.
type collector struct {
	mu     sync.Mutex
	got    []string
	want   int
	cancel context.CancelFunc
}

func (c *collector) emit(tc *v1alpha1.TenantCluster, deleted bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := tc.Name + "=" + tc.Status.Phase
	if deleted {
		s += " (deleted)"
	}
	c.got = append(c.got, s)
	if len(c.got) >= c.want {
		c.cancel()
	}
	return nil
}

func run(t *testing.T, src clusterwatch.Source, want int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := &collector{want: want, cancel: cancel}
	if err := clusterwatch.Run(ctx, src, c.emit); err != nil {
		t.Fatal(err)
	}
	return c.got
}

func equal(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

// A dropped watch is resumed from the last resourceVersion seen; after 410 Gone it starts
// from the current state again, and states already shown are not shown twice.
func TestResumeAfterDropAndGone(t *testing.T) {
	fast(t)
	var mu sync.Mutex
	var from []string
	calls := 0
	var src clusterwatch.Source
	src.Watch = func(_ context.Context, rv string) (watch.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		from = append(from, rv)
		calls++
		w := watch.NewFakeWithChanSize(4, false)
		switch calls {
		case 1:
			w.Add(tc("web", "", "1"))
			w.Modify(tc("web", "Provisioning", "2"))
			w.Stop() // the connection drops
		case 2:
			w.Error(&apierrors.NewResourceExpired("too old").ErrStatus)
		case 3:
			w.Add(tc("web", "Provisioning", "2")) // the current state again: not shown twice
			w.Modify(tc("web", "Ready", "5"))
			w.Delete(tc("web", "Ready", "6"))
		}
		return w, nil
	}
	got := run(t, src, 4)
	equal(t, got, "web=", "web=Provisioning", "web=Ready", "web=Ready (deleted)")
	mu.Lock()
	defer mu.Unlock()
	equal(t, from[:3], "", "2", "")
}

// A server that refuses watches is polled; a filter drops clusters not asked for.
func TestPollsWhenWatchIsRefused(t *testing.T) {
	fast(t)
	states := [][]v1alpha1.TenantCluster{
		{*tc("web", "", "1"), *tc("other", "", "1")},
		{*tc("web", "", "1")},
		{*tc("web", "Ready", "3")},
	}
	polls := 0
	src := clusterwatch.Source{
		Watch: func(context.Context, string) (watch.Interface, error) {
			return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "tenantclusters"}, "", nil)
		},
		List: func(context.Context) ([]v1alpha1.TenantCluster, error) {
			s := states[min(polls, len(states)-1)]
			polls++
			return s, nil
		},
		Keep: func(c *v1alpha1.TenantCluster) bool { return c.Name == "web" },
	}
	equal(t, run(t, src, 2), "web=", "web=Ready")
}

// A list the server refuses ends the watch with its error.
func TestPollRefused(t *testing.T) {
	fast(t)
	src := clusterwatch.Source{List: func(context.Context) ([]v1alpha1.TenantCluster, error) {
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "tenantclusters"}, "", nil)
	}}
	if err := clusterwatch.Run(context.Background(), src, func(*v1alpha1.TenantCluster, bool) error { return nil }); !apierrors.IsForbidden(err) {
		t.Fatalf("got %v", err)
	}
}
