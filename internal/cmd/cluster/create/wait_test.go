package create

import (
	"bytes"
	"context"
	"errors"
	"github.com/butlerdotdev/butler-toolkit/internal/progress"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// fakeServer serves one TenantCluster: GetCluster returns the next of states (the last
// one again and again), WatchCluster hands out fake watchers (or fails with watchErr).
type fakeServer struct {
	store.Store // nil: only GetCluster is used

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

func (f *fakeServer) DryRunCreateCluster(context.Context, *v1alpha1.TenantCluster, []v1alpha1.TenantAddon) (*v1alpha1.TenantCluster, []v1alpha1.TenantAddon, error) {
	return nil, nil, errors.New("not in this fake")
}

func (f *fakeServer) SecretValue(context.Context, string, string, ...string) (string, []byte, error) {
	return "", nil, errors.New("not in this fake")
}

func (f *fakeServer) counts() (gets, watches int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets, f.watches
}

func tc(phase, rv string) *v1alpha1.TenantCluster {
	return &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "payments", ResourceVersion: rv},
		Status:     v1alpha1.TenantClusterStatus{Phase: phase},
	}
}

// fast shortens the wait's intervals for one test.
func fast(t *testing.T) {
	t.Helper()
	poll, prog, spin := PollInterval, ProgressInterval, SpinnerInterval
	PollInterval, ProgressInterval, SpinnerInterval = 10*time.Millisecond, 20*time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { PollInterval, ProgressInterval, SpinnerInterval = poll, prog, spin })
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
	fast(t)
	f := newFake(tc("", "1"))
	go func() {
		w := <-f.watchers
		w.Modify(tc("Provisioning", "2"))
		w.Add(tc("Installing", "3")) // Added after a re-list counts as well
		w.Modify(tc("Ready", "4"))
	}()
	seen, report := collect()
	got, err := Wait(context.Background(), f, f, "payments", "web", time.Minute, ReadyGoal, report)
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
	f := newFake(tc("Ready", "7"))
	_, report := collect()
	if _, err := Wait(context.Background(), f, f, "payments", "web", time.Minute, ReadyGoal, report); err != nil {
		t.Fatal(err)
	}
	if _, watches := f.counts(); watches != 0 {
		t.Errorf("watched a cluster that was Ready: %d watches", watches)
	}
}

// A user who may read but not watch: the wait polls.
func TestWaitPollsWhenWatchIsRefused(t *testing.T) {
	fast(t)
	f := newFake(tc("", "1"), tc("Provisioning", "2"), tc("Provisioning", "2"), tc("Ready", "3"))
	f.watchErr = apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), "", errors.New("no watch"))
	seen, report := collect()
	if _, err := Wait(context.Background(), f, f, "payments", "web", time.Minute, ReadyGoal, report); err != nil {
		t.Fatal(err)
	}
	gets, watches := f.counts()
	if gets != 4 || watches != 1 {
		t.Errorf("%d reads, %d watches; want 4 reads after 1 refused watch", gets, watches)
	}
	if phases(*seen) != ",Provisioning,Provisioning,Ready" {
		t.Errorf("saw %q", phases(*seen))
	}
}

// Watches that end at once, again and again (a proxy dropping them), end up in polling;
// one that ends after a 410 Gone is followed by a fresh read and a new watch.
func TestWaitRewatchesThenPolls(t *testing.T) {
	fast(t)
	f := newFake(tc("", "1"), tc("", "5"), tc("", "5"), tc("", "5"), tc("", "5"), tc("Ready", "9"))
	go func() {
		w := <-f.watchers
		w.Error(&apierrors.NewResourceExpired("too old").ErrStatus)
		for i := 0; i < watchFailures; i++ {
			w := <-f.watchers
			w.Stop()
		}
	}()
	_, report := collect()
	got, err := Wait(context.Background(), f, f, "payments", "web", time.Minute, ReadyGoal, report)
	if err != nil {
		t.Fatal(err)
	}
	gets, watches := f.counts()
	if got.ResourceVersion != "9" || watches != 1+watchFailures || gets < 1+watches+1 {
		t.Errorf("rv %s after %d reads and %d watches", got.ResourceVersion, gets, watches)
	}
}

func TestWaitTimesOut(t *testing.T) {
	fast(t)
	f := newFake(tc("Provisioning", "1"))
	f.watchErr = errors.New("connection refused")
	_, report := collect()
	_, err := Wait(context.Background(), f, f, "payments", "web", 60*time.Millisecond, ReadyGoal, report)
	want := "timed out after 60ms waiting for TenantCluster payments/web to be Ready (phase Provisioning); the cluster was created and is still there"
	if err == nil || err.Error() != want || cmdutil.CodeOf(err) != cmdutil.ExitFailure {
		t.Fatalf("got %v (exit %d), want %q (exit 1)", err, cmdutil.CodeOf(err), want)
	}
}

func TestWaitEndsOnFailureAndDeletion(t *testing.T) {
	fast(t)
	failed := tc("Failed", "2")
	failed.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ProvisioningFailed", Message: "no capacity"}}
	deleting := tc("Deleting", "3")
	now := metav1.Now()
	deleting.DeletionTimestamp = &now

	for _, tt := range []struct {
		name  string
		f     *fakeServer
		event func(*watch.FakeWatcher)
		want  string
	}{
		{"failed", newFake(tc("", "1")), func(w *watch.FakeWatcher) { w.Modify(failed) },
			"TenantCluster payments/web failed: phase Failed (ProvisioningFailed: no capacity)"},
		{"deleted", newFake(tc("", "1")), func(w *watch.FakeWatcher) { w.Delete(tc("", "2")) },
			"TenantCluster payments/web was deleted while waiting for it to be Ready"},
		{"being deleted", newFake(tc("", "1")), func(w *watch.FakeWatcher) { w.Modify(deleting) },
			"TenantCluster payments/web is being deleted: it will not become Ready"},
		{"gone before the watch", newFake(nil), nil,
			"TenantCluster payments/web was deleted while waiting for it to be Ready"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.event != nil {
				go func() { tt.event(<-tt.f.watchers) }()
			}
			_, report := collect()
			_, err := Wait(context.Background(), tt.f, tt.f, "payments", "web", time.Minute, ReadyGoal, report)
			if err == nil || err.Error() != tt.want || cmdutil.CodeOf(err) != cmdutil.ExitFailure {
				t.Fatalf("got %v, want %q (exit 1)", err, tt.want)
			}
		})
	}
}

// A refusal to read is the server's answer (exit 4), not something to wait out.
func TestWaitReadRefused(t *testing.T) {
	f := newFake(tc("", "1"))
	f.getErr = apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), "web", errors.New("no"))
	_, report := collect()
	_, err := Wait(context.Background(), f, f, "payments", "web", time.Minute, ReadyGoal, report)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("got %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressPlainLines(t *testing.T) {
	fast(t)
	var out syncBuffer
	p := newProgress(progress.NewWriter(&out, progress.Lines), "TenantCluster payments/web", time.Minute, time.Now)
	p.update(tc("", "1"))
	c := tc("Provisioning", "2")
	c.Status.WorkerNodesDesired, c.Status.WorkerNodesReady = 3, 1
	p.update(c)
	p.update(c) // unchanged: no line
	time.Sleep(3 * ProgressInterval)
	p.update(tc("Ready", "3")) // the caller says Ready itself
	p.stop()
	got := out.String()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if lines[0] != "Waiting for TenantCluster payments/web to be Ready (timeout 1m0s)" ||
		!strings.HasPrefix(lines[1], "TenantCluster payments/web: no phase yet (") ||
		!strings.HasPrefix(lines[2], "TenantCluster payments/web: phase Provisioning, 1/3 workers ready (") ||
		!strings.Contains(got, "TenantCluster payments/web: still phase Provisioning, 1/3 workers ready (") ||
		strings.Contains(got, "phase Ready") || strings.Contains(got, "\r") {
		t.Fatalf("plain progress:\n%s", got)
	}
}

func TestProgressSpinnerOnATerminal(t *testing.T) {
	fast(t)
	var out syncBuffer
	p := newProgress(progress.NewWriter(&out, progress.Redraw), "TenantCluster payments/web", time.Minute, time.Now)
	p.update(tc("Provisioning", "2"))
	time.Sleep(10 * SpinnerInterval)
	p.stop()
	p.stop() // twice is fine
	got := out.String()
	if !strings.Contains(got, "\r\x1b[K") || !strings.Contains(got, " Waiting for TenantCluster payments/web to be Ready: phase Provisioning (") ||
		!strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Fatalf("terminal progress: %q", got)
	}
}
