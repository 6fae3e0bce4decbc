package clusterwatch_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// fakeServer serves one TenantCluster: GetCluster returns the next of states (the last
// one again and again), WatchCluster hands out fake watchers (or fails with watchErr).
type fakeServer struct {
	mu       sync.Mutex
	states   []*v1alpha1.TenantCluster
	getErr   error
	gets     int
	watchErr error
	watches  int
	watchers chan *watch.FakeWatcher
}

func newFake(states ...*v1alpha1.TenantCluster) *fakeServer {
	return &fakeServer{states: states, watchers: make(chan *watch.FakeWatcher, 16)}
}

func (f *fakeServer) GetCluster(_ context.Context, namespace, name string) (*v1alpha1.TenantCluster, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.getErr != nil {
		return nil, f.getErr
	}
	c := f.states[0]
	if len(f.states) > 1 {
		f.states = f.states[1:]
	}
	if c == nil {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), name)
	}
	return c.DeepCopy(), nil
}

func (f *fakeServer) WatchCluster(_ context.Context, _, _, _ string) (watch.Interface, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watches++
	if f.watchErr != nil {
		return nil, f.watchErr
	}
	w := watch.NewFakeWithChanSize(8, false)
	f.watchers <- w
	return w, nil
}

func (f *fakeServer) one() clusterwatch.One {
	return clusterwatch.One{Get: f.GetCluster, Watch: f.WatchCluster}
}

func (f *fakeServer) counts() (gets, watches int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets, f.watches
}

// watchFailures is clusterwatch's count of failed watches in a row before it polls.
const watchFailures = 3

func web(phase, rv string) *v1alpha1.TenantCluster {
	return &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "payments", ResourceVersion: rv},
		Status:     v1alpha1.TenantClusterStatus{Phase: phase},
	}
}

// fastWait shortens the wait's intervals for one test.
func fastWait(t *testing.T) {
	t.Helper()
	poll, backoff := clusterwatch.PollInterval, clusterwatch.Backoff
	clusterwatch.PollInterval, clusterwatch.Backoff = 10*time.Millisecond, 2*time.Millisecond
	t.Cleanup(func() { clusterwatch.PollInterval, clusterwatch.Backoff = poll, backoff })
}

func phases(seen []*v1alpha1.TenantCluster) string {
	var out []string
	for _, c := range seen {
		out = append(out, c.Status.Phase)
	}
	return strings.Join(out, ",")
}

func collect() (*[]*v1alpha1.TenantCluster, func(*v1alpha1.TenantCluster)) {
	var mu sync.Mutex
	var seen []*v1alpha1.TenantCluster
	return &seen, func(c *v1alpha1.TenantCluster) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, c)
	}
}

func TestWaitFollowsTheWatch(t *testing.T) {
	fastWait(t)
	f := newFake(web("", "1"))
	go func() {
		w := <-f.watchers
		w.Modify(web("Provisioning", "2"))
		w.Add(web("Installing", "3")) // Added after a re-list counts as well
		w.Modify(web("Ready", "4"))
	}()
	seen, report := collect()
	got, err := clusterwatch.Wait(context.Background(), f.one(), "payments", "web", time.Minute, clusterwatch.ReadyGoal, report)
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != "4" || phases(*seen) != ",Provisioning,Installing,Ready" {
		t.Fatalf("got rv %s, saw %q", got.ResourceVersion, phases(*seen))
	}
	if gets, watches := f.counts(); gets != 1 || watches != 1 {
		t.Errorf("%d reads and %d watches, want 1 and 1", gets, watches)
	}
}

func TestWaitAlreadyReady(t *testing.T) {
	f := newFake(web("Ready", "7"))
	_, report := collect()
	if _, err := clusterwatch.Wait(context.Background(), f.one(), "payments", "web", time.Minute, clusterwatch.ReadyGoal, report); err != nil {
		t.Fatal(err)
	}
	if _, watches := f.counts(); watches != 0 {
		t.Errorf("watched a cluster that was Ready: %d watches", watches)
	}
}

// A user who may read but not watch: the wait polls, and reports each state once (a
// read that finds the same resourceVersion shows nothing new).
func TestWaitPollsWhenWatchIsRefused(t *testing.T) {
	fastWait(t)
	f := newFake(web("", "1"), web("Provisioning", "2"), web("Provisioning", "2"), web("Ready", "3"))
	f.watchErr = apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), "", errors.New("no watch"))
	seen, report := collect()
	if _, err := clusterwatch.Wait(context.Background(), f.one(), "payments", "web", time.Minute, clusterwatch.ReadyGoal, report); err != nil {
		t.Fatal(err)
	}
	gets, watches := f.counts()
	if gets != 4 || watches != 1 {
		t.Errorf("%d reads, %d watches; want 4 reads after 1 refused watch", gets, watches)
	}
	if phases(*seen) != ",Provisioning,Ready" {
		t.Errorf("saw %q", phases(*seen))
	}
}

// Watches that end at once, again and again (a proxy dropping them), end up in polling;
// one that ends after a 410 Gone is followed by a fresh read and a new watch.
func TestWaitRewatchesThenPolls(t *testing.T) {
	fastWait(t)
	f := newFake(web("", "1"), web("", "5"), web("", "5"), web("", "5"), web("", "5"), web("Ready", "9"))
	go func() {
		w := <-f.watchers
		w.Error(&apierrors.NewResourceExpired("too old").ErrStatus)
		for i := 0; i < watchFailures; i++ {
			w := <-f.watchers
			w.Stop()
		}
	}()
	_, report := collect()
	got, err := clusterwatch.Wait(context.Background(), f.one(), "payments", "web", time.Minute, clusterwatch.ReadyGoal, report)
	if err != nil {
		t.Fatal(err)
	}
	gets, watches := f.counts()
	if got.ResourceVersion != "9" || watches != 1+watchFailures || gets < 1+watches+1 {
		t.Errorf("rv %s after %d reads and %d watches", got.ResourceVersion, gets, watches)
	}
}

func TestWaitTimesOut(t *testing.T) {
	fastWait(t)
	f := newFake(web("Provisioning", "1"))
	f.watchErr = errors.New("connection refused")
	_, report := collect()
	_, err := clusterwatch.Wait(context.Background(), f.one(), "payments", "web", 60*time.Millisecond, clusterwatch.ReadyGoal, report)
	want := "timed out after 60ms waiting for TenantCluster payments/web to be Ready (phase Provisioning); the cluster was created and is still there"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestWaitEndsOnFailureAndDeletion(t *testing.T) {
	fastWait(t)
	failed := web("Failed", "2")
	failed.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ProvisioningFailed", Message: "no capacity"}}
	deleting := web("Deleting", "3")
	now := metav1.Now()
	deleting.DeletionTimestamp = &now

	for _, tt := range []struct {
		name  string
		f     *fakeServer
		event func(*watch.FakeWatcher)
		want  string
	}{
		{"failed", newFake(web("", "1")), func(w *watch.FakeWatcher) { w.Modify(failed) },
			"TenantCluster payments/web failed: phase Failed (ProvisioningFailed: no capacity)"},
		{"deleted", newFake(web("", "1")), func(w *watch.FakeWatcher) { w.Delete(web("", "2")) },
			"TenantCluster payments/web was deleted while waiting for it to be Ready"},
		{"being deleted", newFake(web("", "1")), func(w *watch.FakeWatcher) { w.Modify(deleting) },
			"TenantCluster payments/web is being deleted: it will not become Ready"},
		{"gone before the watch", newFake(nil), nil,
			"TenantCluster payments/web was deleted while waiting for it to be Ready"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.event != nil {
				go func() { tt.event(<-tt.f.watchers) }()
			}
			_, report := collect()
			_, err := clusterwatch.Wait(context.Background(), tt.f.one(), "payments", "web", time.Minute, clusterwatch.ReadyGoal, report)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// A refusal to read is the server's answer (exit 4), not something to wait out.
func TestWaitReadRefused(t *testing.T) {
	f := newFake(web("", "1"))
	f.getErr = apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), "web", errors.New("no"))
	_, report := collect()
	_, err := clusterwatch.Wait(context.Background(), f.one(), "payments", "web", time.Minute, clusterwatch.ReadyGoal, report)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("got %v", err)
	}
}
