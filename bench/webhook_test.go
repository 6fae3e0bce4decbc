package bench

// TestWebhookLoad: 20 clients at once creating and scaling TenantClusters in a namespace
// that already holds 10,000 (BUTLER_BENCH_CLUSTERS), with Butler's validating webhook
// registered and enforcing (`butleradm webhook serve` built from this tree, a process of
// its own started once the namespace is full, so its caches list every cluster), and, in
// the same run and alternating with it, the same writes with the webhook configuration
// removed: the baseline. Every create, and every update that grows a cluster, is counted
// against the team's usage of the namespace. It prints p50/p99 latency and throughput of
// both, the ratios, and the webhook process's peak memory. Run it with bench/webhook.sh
// (skipped unless BUTLER_BENCH_WEBHOOK_LOAD=1).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

const loadNS = "webhook-load"

func TestWebhookLoad(t *testing.T) {
	if os.Getenv("BUTLER_BENCH_WEBHOOK_LOAD") != "1" {
		t.Skip("set BUTLER_BENCH_WEBHOOK_LOAD=1 (or run bench/webhook.sh) to run the webhook load benchmark")
	}
	n := envInt(t, "BUTLER_BENCH_CLUSTERS", 10000)
	writes := envInt(t, "BUTLER_BENCH_WRITES", 10) // per client and phase: half creates, half scale-ups
	rounds := envInt(t, "BUTLER_BENCH_ROUNDS", 2)
	clients := envInt(t, "BUTLER_BENCH_CLIENTS", 20)
	env := testenv.Start(t)
	ctx := context.Background()
	if err := env.ResetToExample(ctx); err != nil { // harvester-prod, which the clusters use
		t.Fatal(err)
	}
	loadTeam(t, ctx, env)

	t0 := time.Now()
	seedLoad(t, ctx, env, n)
	t.Logf("seeded %d clusters in %v", n, time.Since(t0).Round(time.Second))

	srv := startServe(t, env)
	hook := registration{env: env, saved: srv.configuration()}

	cfg := env.UserConfig("admin")
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	var base, with phaseResult
	for r := 0; r < rounds; r++ {
		base.add(loadPhase(ctx, c, fmt.Sprintf("b%d", r), clients, writes))
		hook.restore(t, ctx)
		with.add(loadPhase(ctx, c, fmt.Sprintf("w%d", r), clients, writes))
		hook.remove(t, ctx)
	}
	bp50, bp99 := base.percentiles()
	wp50, wp99 := with.percentiles()
	report := fmt.Sprintf("%d clients, %d clusters in the namespace, %d writes per mode (%d rounds): "+
		"webhook p50 %v p99 %v %.1f writes/s, %d failed; without p50 %v p99 %v %.1f writes/s, %d failed "+
		"(latency of the writes that went through, throughput counts those only); "+
		"webhook/without: p50 %.3gx, p99 %.3gx, throughput %.3gx",
		clients, n, rounds*clients*writes, rounds,
		ms(wp50), ms(wp99), with.throughput(), with.failed, ms(bp50), ms(bp99), base.throughput(), base.failed,
		wp50.Seconds()/bp50.Seconds(), wp99.Seconds()/bp99.Seconds(), with.throughput()/base.throughput())
	report += fmt.Sprintf("; one review alone (a refused dry-run create, no other load): %v", hook.alone)
	report += fmt.Sprintf("; webhook peak memory %d MiB (bundle limit 256 MiB)", srv.peakRSS(t)>>20)
	t.Log(report)
	fmt.Println(report)
	for _, e := range append(base.errs, with.errs...) {
		t.Error(e)
	}
}

func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// phaseResult is the writes of one mode: the latency of each that went through, the wall
// time, the failures.
type phaseResult struct {
	took   []time.Duration
	wall   time.Duration
	failed int
	errs   []string // the first few
}

func (p *phaseResult) add(q phaseResult) {
	p.took = append(p.took, q.took...)
	p.wall += q.wall
	p.failed += q.failed
	for _, e := range q.errs {
		if len(p.errs) < 5 {
			p.errs = append(p.errs, e)
		}
	}
}

func (p *phaseResult) percentiles() (p50, p99 time.Duration) {
	if len(p.took) == 0 {
		return 0, 0
	}
	s := append([]time.Duration(nil), p.took...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))] }
	return at(0.50), at(0.99)
}

func (p *phaseResult) throughput() float64 { return float64(len(p.took)) / p.wall.Seconds() }

// loadPhase runs clients at once, each creating a cluster and then scaling it
// up (2 to 3 workers), writes times in all; every write is one the rules allow.
func loadPhase(ctx context.Context, c client.Client, tag string, clients, writes int) phaseResult {
	var mu sync.Mutex
	var res phaseResult
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var cur *v1alpha1.TenantCluster
			for j := 0; j < writes; j++ {
				t0 := time.Now()
				var err error
				switch {
				case j%2 == 0:
					cur = loadCluster(fmt.Sprintf("%s-c%02d-%04d", tag, i, j))
					if err = c.Create(ctx, cur); err != nil {
						cur = nil
					}
				case cur == nil:
					err = errors.New("not attempted: the create before it failed")
				default:
					cur.Spec.Workers.Replicas = 3
					err = c.Update(ctx, cur)
				}
				took := time.Since(t0)
				mu.Lock()
				// Latency is of the writes that went through; failures are counted apart.
				if err == nil {
					res.took = append(res.took, took)
				} else {
					res.failed++
					if len(res.errs) < 5 {
						res.errs = append(res.errs, fmt.Sprintf("%s client %d write %d: %v", tag, i, j, err))
					}
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	res.wall = time.Since(start)
	return res
}

// registration removes and restores a webhook configuration, waiting each time until the
// API server acts on the change.
type registration struct {
	env   *testenv.Env
	saved *admissionregistrationv1.ValidatingWebhookConfiguration
	alone []time.Duration // the refused probes, one per registration
}

func (r *registration) remove(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := r.env.Client.Delete(ctx, r.saved.DeepCopy()); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	r.wait(t, ctx, false)
}

func (r *registration) restore(t *testing.T, ctx context.Context) {
	t.Helper()
	vwc := r.saved.DeepCopy()
	vwc.ResourceVersion, vwc.UID, vwc.ManagedFields, vwc.CreationTimestamp = "", "", nil, metav1.Time{}
	if err := r.env.Client.Create(ctx, vwc); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	r.wait(t, ctx, true)
}

// wait probes with a dry-run create the rules refuse (over the team's nodes per cluster)
// until it is refused (registered) or admitted (not).
func (r *registration) wait(t *testing.T, ctx context.Context, registered bool) {
	t.Helper()
	probe := loadCluster("probe")
	probe.Spec.Workers.Replicas = 99
	deadline := time.Now().Add(30 * time.Second)
	for {
		t0 := time.Now()
		err := r.env.Client.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		if (err != nil) == registered {
			if registered {
				// One review alone, reading the namespace: what a write costs without contention.
				r.alone = append(r.alone, ms(time.Since(t0)))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook configuration change (registered: %v) never took effect: %v", registered, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// loadTeam makes the team and its namespace: limits far above the run, but set, so the
// webhook counts usage.
func loadTeam(t *testing.T, ctx context.Context, env *testenv.Env) {
	t.Helper()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: loadNS}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	big := int32(1_000_000)
	tm := &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: loadNS},
		Spec: v1alpha1.TeamSpec{
			ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: &big, MaxTotalNodes: &big, MaxNodesPerCluster: ptr(int32(10))},
			Environments:   []v1alpha1.EnvironmentSpec{{Name: "prod"}},
		},
	}
	if err := env.Client.Create(ctx, tm); err != nil {
		t.Fatal(err)
	}
	tm.Status.Namespace = loadNS
	if err := env.Client.Status().Update(ctx, tm); err != nil {
		t.Fatal(err)
	}
}

// seedLoad makes n clusters in the team's namespace, 32 creates at a time.
func seedLoad(t *testing.T, ctx context.Context, env *testenv.Env, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 32)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := env.Client.Create(ctx, loadCluster(fmt.Sprintf("seed-%05d", i))); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// loadCluster is an allowed prod cluster of the load team on the platform's Harvester.
func loadCluster(name string) *v1alpha1.TenantCluster {
	return &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: loadNS,
			Labels:      map[string]string{v1alpha1.LabelTeam: loadNS, v1alpha1.LabelEnvironment: "prod"},
			Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: "load@example.com"},
		},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: loadNS},
			ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod", Namespace: testenv.PlatformNamespace},
			Workers: v1alpha1.WorkersSpec{Replicas: 2, MachineTemplate: v1alpha1.MachineTemplate{
				CPU: 2, Memory: resource.MustParse("4Gi"), DiskSize: resource.MustParse("50Gi")}},
		},
	}
}
