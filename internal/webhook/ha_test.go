package webhook_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// High availability: two webhook processes behind one address (a TCP balancer in the test,
// standing in for the Service in front of the bundle's two replicas), registered fail-closed
// like the bundle's configuration, and one of them killed with SIGKILL while a stream of
// TenantCluster writes runs. Every outcome is checked against pkg/policy: nothing the rules
// refuse is admitted, nothing they allow is refused as a policy denial, and what the outage
// refuses is reported as a failed webhook call. The kill is tied to a review in flight (the
// balancer swallows the chunk carrying it and kills that connection's backend), so at least
// one write meets the outage on every run, whatever the scheduling.
const (
	haChildCertDir    = "BUTLER_WEBHOOK_HA_CERT_DIR" // set: this process is a webhook backend
	haChildKubeconfig = "BUTLER_WEBHOOK_HA_KUBECONFIG"
	haChildIdentity   = "BUTLER_WEBHOOK_HA_IDENTITY"

	haLeaseNS = "default"
	haLease   = "ha-webhook"

	haNS       = "ha"
	haTeam     = "ha"
	haUser     = "ha-writer@example.com"
	haHook     = "ha." + webhook.NameTenantCluster
	haWriters  = 4
	haDeadline = 60 * time.Second
)

// haChild is a webhook backend process: the package's server with a reader of its own,
// on a port it prints, until its stdin closes or it is killed.
func haChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "webhook backend:", err); return 1 }
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv(haChildKubeconfig))
	if err != nil {
		return fail(err)
	}
	reader, err := webhook.NewCachedReader(cfg, 0)
	if err != nil {
		return fail(err)
	}
	srv, err := webhook.New(webhook.Options{CertDir: os.Getenv(haChildCertDir), Reader: reader,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	// As `webhook serve --leader-elect`, with the timings shortened for a test: the Lease
	// is taken over 4 s after the last renewal, and the leader stops deciding 2 s after it.
	el := &webhook.Election{Namespace: haLeaseNS, Name: haLease, Identity: os.Getenv(haChildIdentity),
		LeaseDuration: 4 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 250 * time.Millisecond,
		Reader: reader, Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	reader.DecideOnlyWhen(el.Leading)
	ectx, ecancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = el.Run(ectx, cfg); close(done) }()
	fmt.Println(ln.Addr().String())
	err = srv.Serve(ctx, ln)
	ecancel()
	<-done
	if err != nil {
		return fail(err)
	}
	return 0
}

// haBackend is a running backend process.
type haBackend struct {
	cmd   *exec.Cmd
	stdin io.Closer
	addr  string
	log   string
	once  sync.Once
}

// startBackend starts this test binary again as a webhook backend.
func startBackend(t *testing.T, certDir, kubeconfig string, n int) *haBackend {
	t.Helper()
	b := &haBackend{log: filepath.Join(t.TempDir(), fmt.Sprintf("backend-%d.log", n))}
	lf, err := os.Create(b.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lf.Close() })
	b.cmd = exec.Command(os.Args[0])
	b.cmd.Env = append(os.Environ(), haChildCertDir+"="+certDir, haChildKubeconfig+"="+kubeconfig, haChildIdentity+"="+backendID(n))
	b.cmd.Stderr = lf
	stdin, err := b.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.stdin = stdin
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.stop)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case b.addr = <-line:
	case <-time.After(20 * time.Second):
	}
	if b.addr == "" {
		b.kill()
		log, _ := os.ReadFile(b.log)
		t.Fatalf("webhook backend %d did not start:\n%s", n, log)
	}
	return b
}

func backendID(n int) string { return fmt.Sprintf("backend-%d", n) }

// followLease points the balancer at the backend holding the Lease, as the bundle's
// Service selects the pod its leader labels, until the test ends.
func followLease(t *testing.T, env *testenv.Env, lb *balancer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			l := &coordinationv1.Lease{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: haLeaseNS, Name: haLease}, l); err == nil && l.Spec.HolderIdentity != nil {
				for i := range lb.backends {
					if *l.Spec.HolderIdentity == backendID(i) {
						lb.setLeader(i)
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
}

// kill is SIGKILL: no graceful shutdown, connections reset by the kernel.
func (b *haBackend) kill() {
	b.once.Do(func() {
		_ = b.cmd.Process.Kill()
		_ = b.cmd.Wait()
	})
}

func (b *haBackend) stop() {
	_ = b.stdin.Close()
	timer := time.AfterFunc(15*time.Second, func() { _ = b.cmd.Process.Kill() })
	defer timer.Stop()
	b.once.Do(func() { _ = b.cmd.Wait() })
}

// haWrite is one write of the stream: a create, or an update of an existing cluster's
// worker replicas.
type haWrite struct {
	phase    int
	name     string
	replicas int32
	update   bool
}

type outcomeKind int

const (
	admitted outcomeKind = iota
	policyRefused
	outageRefused
	otherError
)

type haOutcome struct {
	write    haWrite
	old, new *v1alpha1.TenantCluster
	kind     outcomeKind
	message  string
}

func TestHAKillOneOfTwoWebhooks(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	ctx, cancel := context.WithTimeout(context.Background(), haDeadline)
	defer cancel()
	// The harness's own webhook stays dormant (it allows everything): the backends judge.
	env.EnforceWebhook(false)
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	if err := setupHATeam(ctx, env.Client); err != nil {
		t.Fatalf("setup: %v", err)
	}

	backends, lb := startPair(ctx, t, env, haNS)

	c, err := client.New(env.Impersonating(haUser, "ha:writers"), client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	waitForHA(ctx, t, c)

	pattern := []int32{2, 3, 6, 4, 9, 1, 5, 7} // over 5 nodes per cluster: refused
	var all []haOutcome
	var phase1 []haWrite
	for k := 0; k < 32; k++ {
		phase1 = append(phase1, haWrite{phase: 1, name: fmt.Sprintf("p1-%02d", k), replicas: pattern[k%len(pattern)]})
	}
	all = append(all, runWrites(ctx, c, phase1, nil)...)

	// Later phases also scale clusters phase 1 created, each once.
	var existing v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &existing, client.InNamespace(haNS)); err != nil {
		t.Fatal(err)
	}
	targets := make([]string, 0, len(existing.Items))
	for _, tc := range existing.Items {
		targets = append(targets, tc.Name)
	}
	sort.Strings(targets)
	mixed := func(phase int) []haWrite {
		var ws []haWrite
		for k := 0; k < 24; k++ {
			w := haWrite{phase: phase, name: fmt.Sprintf("p%d-%02d", phase, k), replicas: pattern[(k+phase)%len(pattern)]}
			if k%3 == 0 && len(targets) > 0 {
				w.name, w.update, targets = targets[0], true, targets[1:]
			}
			ws = append(ws, w)
		}
		return ws
	}

	// Phase 2: a third of the way in, arm the kill; the next review that reaches a
	// backend dies with it.
	killed := -1
	var killMu sync.Mutex
	arm := func(done int) {
		if done == 8 {
			lb.armTrip(func(i int) {
				backends[i].kill()
				lb.markDead(i)
				killMu.Lock()
				killed = i
				killMu.Unlock()
			})
		}
	}
	all = append(all, runWrites(ctx, c, mixed(2), arm)...)
	killMu.Lock()
	k := killed
	killMu.Unlock()
	if k < 0 {
		t.Fatal("no review reached a backend after the kill was armed")
	}
	// The survivor takes the Lease once it expires, catches up, and decides.
	waitForHA(ctx, t, c)
	all = append(all, runWrites(ctx, c, mixed(3), nil)...)
	t.Logf("killed backend %d; connections per backend %v", k, lb.servedBy())

	checkHA(ctx, t, env, all)
}

// runWrites runs the writes with haWriters clients at once; progress, if set, is called
// with the number of outcomes so far after each one.
func runWrites(ctx context.Context, c client.Client, writes []haWrite, progress func(done int)) []haOutcome {
	jobs := make(chan haWrite)
	var mu sync.Mutex
	var out []haOutcome
	var wg sync.WaitGroup
	for w := 0; w < haWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				o := doWrite(ctx, c, job)
				mu.Lock()
				out = append(out, o)
				n := len(out)
				mu.Unlock()
				if progress != nil {
					progress(n)
				}
			}
		}()
	}
	for _, w := range writes {
		jobs <- w
	}
	close(jobs)
	wg.Wait()
	return out
}

func doWrite(ctx context.Context, c client.Client, w haWrite) haOutcome {
	o := haOutcome{write: w}
	var err error
	if w.update {
		cur := &v1alpha1.TenantCluster{}
		if err = c.Get(ctx, client.ObjectKey{Namespace: haNS, Name: w.name}, cur); err == nil {
			o.old = cur.DeepCopy()
			cur.Spec.Workers.Replicas = w.replicas
			o.new = cur
			err = c.Update(ctx, cur)
		}
	} else {
		o.new = haCluster(w.name, w.replicas)
		err = c.Create(ctx, o.new.DeepCopy())
	}
	o.kind, o.message = classify(err)
	return o
}

// classify sorts a write's error: none, a denial by the backends' webhook, a failed call to
// it (the outage: the API server could not get an answer and, failing closed, refused), or
// anything else.
func classify(err error) (outcomeKind, string) {
	if err == nil {
		return admitted, ""
	}
	if hook, msg, ok := testenv.DenialOf(err); ok {
		if hook == haHook {
			return policyRefused, msg
		}
		return otherError, err.Error()
	}
	if apierrors.IsInternalError(err) && strings.Contains(err.Error(), fmt.Sprintf("failed calling webhook %q", haHook)) {
		return outageRefused, err.Error()
	}
	// A review that reached a replica as it lost the Lease (or before the balancer
	// followed the new holder) is refused, failing closed.
	if strings.Contains(err.Error(), webhook.ErrNotLeader.Error()) {
		return outageRefused, err.Error()
	}
	return otherError, err.Error()
}

// checkHA holds every outcome to pkg/policy's verdict on the same write.
func checkHA(ctx context.Context, t *testing.T, env *testenv.Env, all []haOutcome) {
	t.Helper()
	team := &v1alpha1.Team{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: haTeam}, team); err != nil {
		t.Fatal(err)
	}
	pc := &v1alpha1.ProviderConfig{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: testenv.PlatformNamespace, Name: "harvester-prod"}, pc); err != nil {
		t.Fatal(err)
	}
	var siblings v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &siblings, client.InNamespace(haNS)); err != nil {
		t.Fatal(err)
	}
	count := map[outcomeKind]int{}
	for _, o := range all {
		count[o.kind]++
		w := o.write
		op := policy.Create
		if w.update {
			op = policy.Update
		}
		d := policy.AdmitCluster(policy.ClusterRequest{Operation: op, Cluster: o.new, Old: o.old, Team: team,
			Siblings: siblings.Items, ProviderConfig: pc, Username: haUser})
		what := fmt.Sprintf("phase %d, %s %s to %d replicas", w.phase, map[bool]string{false: "create", true: "update"}[w.update], w.name, w.replicas)
		switch o.kind {
		case admitted:
			if !d.Allowed() {
				t.Errorf("%s: admitted, but the rules refuse it: %v", what, d.Err())
			}
		case policyRefused:
			if d.Allowed() {
				t.Errorf("%s: refused as a policy denial, but the rules allow it: %s", what, o.message)
			} else if want := d.Err().Error(); o.message != want {
				t.Errorf("%s: denial\n got: %s\nwant: %s", what, o.message, want)
			}
		case outageRefused:
			if w.phase != 2 {
				t.Errorf("%s: refused by an outage outside the phase with the kill: %s", what, o.message)
			}
			checkNotWritten(ctx, t, env, o, what)
			if count[outageRefused] == 1 {
				t.Logf("%s: %s", what, o.message)
			}
		default:
			t.Errorf("%s: %s", what, o.message)
		}
	}
	t.Logf("%d writes: %d admitted, %d refused by the rules, %d refused by the outage",
		len(all), count[admitted], count[policyRefused], count[outageRefused])
	if count[outageRefused] == 0 {
		t.Error("no write met the outage; the kill should have cut a review in flight")
	}
}

// checkNotWritten: a write refused by the outage left nothing behind.
func checkNotWritten(ctx context.Context, t *testing.T, env *testenv.Env, o haOutcome, what string) {
	t.Helper()
	cur := &v1alpha1.TenantCluster{}
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: haNS, Name: o.write.name}, cur)
	switch {
	case !o.write.update && !apierrors.IsNotFound(err):
		t.Errorf("%s: refused by the outage, yet the cluster exists (%v)", what, err)
	case o.write.update && err != nil:
		t.Errorf("%s: %v", what, err)
	case o.write.update && cur.ResourceVersion != o.old.ResourceVersion:
		t.Errorf("%s: refused by the outage, yet the cluster changed (%d replicas)", what, cur.Spec.Workers.Replicas)
	}
}

// startPair starts two elected replicas behind one balancer that follows the lease, and
// registers them for namespace ns.
func startPair(ctx context.Context, t *testing.T, env *testenv.Env, ns string) ([]*haBackend, *balancer) {
	t.Helper()
	certDir, caBundle := servingCert(t)
	backends := []*haBackend{
		startBackend(t, certDir, env.Kubeconfig("admin"), 0),
		startBackend(t, certDir, env.Kubeconfig("admin"), 1),
	}
	lb := newBalancer(t, []string{backends[0].addr, backends[1].addr})
	followLease(t, env, lb)
	registerFor(ctx, t, env, ns, "https://"+lb.addr()+webhook.PathTenantCluster, caBundle)
	return backends, lb
}

// waitForHA waits until the API server calls the new configuration: a dry-run create the
// rules refuse is refused by it.
func waitForHA(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := c.Create(ctx, haCluster("probe", 9), client.DryRunAll)
		kind, msg := classify(err)
		if kind == policyRefused {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HA webhook configuration never took effect: last answer %q", msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setupHATeam makes team "ha" in its namespace: environment prod without caps, team limits
// far above the run except 5 worker nodes per cluster, so each write's verdict depends on
// the write alone and stays the same whichever writes before it met the outage.
func setupHATeam(ctx context.Context, c client.Client) error {
	return createTeam(ctx, c, &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: haTeam},
		Spec: v1alpha1.TeamSpec{
			DisplayName:    "HA",
			ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: i32(1000), MaxTotalNodes: i32(10000), MaxNodesPerCluster: i32(5)},
			Environments:   []v1alpha1.EnvironmentSpec{{Name: "prod"}},
		},
	})
}

func haCluster(name string, replicas int32) *v1alpha1.TenantCluster {
	return teamCluster(haTeam, name, "prod", haUser, replicas)
}
