package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// live is Payments with a server whose controller makes every watched cluster Ready at
// once, in tenant namespace "tenant", and whose Secret holds kubeconfig.
func live(t *testing.T, as string, kubeconfig string) *storetest.Store {
	s := storetest.Payments(t, as)
	s.Live = &storetest.Server{
		DryRunCreate: func(_ context.Context, c *v1alpha1.TenantCluster, a []v1alpha1.TenantAddon) (*v1alpha1.TenantCluster, []v1alpha1.TenantAddon, error) {
			return c, a, nil
		},
		WatchOne: func(_ context.Context, ns, name, _ string) (watch.Interface, error) {
			w := watch.NewFakeWithChanSize(1, false)
			for i := range s.Clusters {
				if c := &s.Clusters[i]; c.Namespace == ns && c.Name == name {
					c.Status.Phase, c.Status.TenantNamespace = "Ready", "tenant"
					c.ResourceVersion = "2" // a state after the one listed
					w.Modify(c.DeepCopy())
				}
			}
			return w, nil
		},
		Secret: func(_ context.Context, ns, name string, keys ...string) (string, []byte, error) {
			return keys[0], []byte(kubeconfig), nil
		},
	}
	return s
}

// A passing command: it sees the kubeconfig (mode 0600) and the cluster's name; the
// cluster is deleted afterwards and the file removed.
func TestRunPassesAndDeletes(t *testing.T) {
	dir := t.TempDir()
	s := live(t, "bob@example.com", "apiVersion: v1\nkind: Config\n")
	out := filepath.Join(dir, "seen")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false,
		"ci-1", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--",
		"sh", "-c", `stat -c %a "$KUBECONFIG" > "$0"; cat "$KUBECONFIG" >> "$0"; echo "$BUTLER_CLUSTER_NAME $KUBECONFIG" >> "$0"`, out)
	if r.Code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.Code, r.Err, r.Stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "600" || lines[1] != "apiVersion: v1" || !strings.HasPrefix(lines[3], "ci-1 ") {
		t.Fatalf("the command saw %q", lines)
	}
	if _, err := os.Stat(strings.TrimPrefix(lines[3], "ci-1 ")); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig file is still there: %v", err)
	}
	if len(s.Deleted) != 1 || s.Deleted[0] != "TenantCluster payments/ci-1" {
		t.Errorf("deleted %q", s.Deleted)
	}
}

// A failing command with --on-failure keep: its exit status, and the cluster kept with
// its expiry moved to now plus --keep-for (cmdtest's clock: 2025-01-01T00:00:00Z).
func TestRunFailsAndKeeps(t *testing.T) {
	s := live(t, "bob@example.com", "x")
	var annotated []string
	s.Live.(*storetest.Server).Annotate = func(_ context.Context, c *v1alpha1.TenantCluster, k, v string) (*v1alpha1.TenantCluster, error) {
		annotated = append(annotated, c.Name+" "+k+"="+v)
		return c, nil
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false,
		"ci-2", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--on-failure", "keep", "--keep-for", "3h", "--", "sh", "-c", "exit 7")
	if r.Code != 7 {
		t.Fatalf("exit %d (%v), want 7", r.Code, r.Err)
	}
	if len(s.Deleted) != 0 || len(annotated) != 1 || annotated[0] != "ci-2 butler.butlerlabs.dev/expires-at=2025-01-01T03:00:00Z" {
		t.Errorf("deleted %q, annotated %q", s.Deleted, annotated)
	}
	if !strings.Contains(r.Stderr, "tenantcluster.butler.butlerlabs.dev/ci-2 kept: expires 2025-01-01T03:00:00Z") {
		t.Errorf("stderr %q", r.Stderr)
	}
}

// A second interrupt abandons the cleanup: nothing is deleted, and stderr says when the
// cluster expires.
func TestSecondInterruptLeavesTheClusterToItsTTL(t *testing.T) {
	s := live(t, "bob@example.com", "x")
	ios, _, _, errOut := iostreams.Test()
	c := s.Clusters[0].DeepCopy()
	c.Annotations[clusterttl.Annotation] = "2025-01-01T01:00:00Z"
	o := &Options{OnFailure: OnFailureDelete}
	o.IO = ios
	r := &runner{o: o, s: s, abandon: make(chan struct{})}
	close(r.abandon)
	if err := r.cleanup(c, true); err != nil {
		t.Fatal(err)
	}
	if len(s.Deleted) != 0 {
		t.Errorf("deleted %q", s.Deleted)
	}
	want := "Interrupted again: TenantCluster " + c.Namespace + "/" + c.Name + " is left to its TTL: it expires 2025-01-01T01:00:00Z"
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}

// A CI runner's cancel sends SIGINT, then SIGTERM: the cleanup still runs. Only the same
// signal again (a second Ctrl-C) abandons it.
func TestOnlyTheSameSignalAgainAbandonsTheCleanup(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	sig := make(chan os.Signal) // unbuffered: a send returns once the signal is taken
	o := &Options{}
	o.IO = ios
	r := &runner{o: o, sig: sig, abandon: make(chan struct{})}
	done := make(chan struct{})
	defer close(done)
	go r.interrupts(func() {}, done)
	send := func(s os.Signal) {
		t.Helper()
		select {
		case sig <- s:
		case <-time.After(10 * time.Second):
			t.Fatalf("%v was not taken: the interrupts stopped listening", s)
		}
	}
	send(os.Interrupt)
	send(syscall.SIGTERM)
	send(syscall.SIGTERM) // taken only once the first SIGTERM was handled
	if r.abandoned() {
		t.Fatal("SIGTERM after SIGINT abandoned the cleanup")
	}
	send(os.Interrupt)
	select {
	case <-r.abandon:
	case <-time.After(10 * time.Second):
		t.Fatal("a second SIGINT did not abandon the cleanup")
	}
}

// A cleanup that fails does not replace why the run failed: COMMAND's status is the exit,
// and the cleanup's error is said.
func TestCleanupErrorKeepsTheCommandStatus(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	o := &Options{}
	o.IO = ios
	r := &runner{o: o}
	err := r.outcome(7, nil, errors.New("cannot freeze: no control plane yet"))
	var se *cmdutil.SilentError
	if !errors.As(err, &se) || se.Code != 7 {
		t.Fatalf("exit %v, want COMMAND's 7", err)
	}
	if !strings.Contains(errOut.String(), "Error: cannot freeze: no control plane yet") {
		t.Errorf("stderr %q", errOut.String())
	}
	if err := r.outcome(0, nil, errors.New("deleting: forbidden")); err == nil || err.Error() != "deleting: forbidden" {
		t.Errorf("a passing command whose cleanup failed: %v, want the cleanup's error", err)
	}
}
