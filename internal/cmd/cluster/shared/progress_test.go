package shared

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/progress"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func tc(phase, rv string) *v1alpha1.TenantCluster {
	return &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "payments", ResourceVersion: rv},
		Status:     v1alpha1.TenantClusterStatus{Phase: phase},
	}
}

// fast shortens the progress intervals for one test.
func fast(t *testing.T) {
	t.Helper()
	prog, spin := ProgressInterval, SpinnerInterval
	ProgressInterval, SpinnerInterval = 20*time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { ProgressInterval, SpinnerInterval = prog, spin })
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
