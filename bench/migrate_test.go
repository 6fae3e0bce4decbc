// Package bench holds benchmarks that need the test control plane (internal/testenv).
//
// TestMigrate1000 migrates 1,000 TenantClusters into an environment with
// `butleradm env migrate` and, in the same run and over the same clusters (put back as they
// were between phases), times the plain kubectl way: `kubectl annotate` the migration
// annotation, `kubectl label` the environment, `kubectl annotate` to remove the annotation,
// each over the whole selection. A third phase sends the same two patches per cluster from
// a bare HTTP client at the same concurrency: on loopback, where the API server's CPU is
// the bound, the floor no client can beat. It prints the three times, the ratios, and the
// CPU time each process used. Run it with bench/migrate.sh (it is skipped unless BUTLER_BENCH_MIGRATE=1).
package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

const (
	team     = "bench"
	selector = "bench=migrate"
)

func TestMigrate1000(t *testing.T) {
	if os.Getenv("BUTLER_BENCH_MIGRATE") != "1" {
		t.Skip("set BUTLER_BENCH_MIGRATE=1 (or run bench/migrate.sh) to run the migration benchmark")
	}
	n := 1000
	var err error
	if v := os.Getenv("BUTLER_BENCH_CLUSTERS"); v != "" {
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	// BUTLER_BENCH_WEBHOOK=1: Butler's validating webhook registered and enforcing, as on a
	// real management cluster, for every phase.
	webhook := os.Getenv("BUTLER_BENCH_WEBHOOK") == "1"
	var opts []testenv.Option
	if webhook {
		opts = append(opts, testenv.WithWebhook())
	}
	env := testenv.Start(t, opts...)
	ctx := context.Background()
	kubectl := filepath.Join(testenv.AssetsDir(), "kubectl")
	kubeconfig := env.Kubeconfig("admin")
	// BUTLER_BENCH_RTT (a duration, e.g. 2ms): every client, the tool, kubectl and the
	// bare client's, talks to the API server through a proxy that puts it that round trip away.
	cfg := rest.CopyConfig(env.Config)
	var rtt time.Duration
	if v := os.Getenv("BUTLER_BENCH_RTT"); v != "" {
		if rtt, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
		kubeconfig, cfg = behindProxy(t, env, kubeconfig, rtt)
	}
	bare, err := newBareClient(cfg, team, env)
	if err != nil {
		t.Fatal(err)
	}

	// The tool, built like a user gets it.
	bin := filepath.Join(t.TempDir(), "butleradm")
	build := exec.Command("go", "build", "-o", bin, "../cmd/butleradm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	seed(t, ctx, env, n)
	if webhook {
		env.EnforceWebhook(true)
	}

	// The plan alone (reads, identity, preflight), for the record.
	start := time.Now()
	if out, err := exec.Command(bin, "env", "migrate", "--team", team, "--environment", "prod", "-l", selector,
		"--dry-run", "-o", "json", "--kubeconfig", kubeconfig).Output(); err != nil {
		t.Fatalf("butleradm --dry-run: %v\n%s", err, out)
	}
	planTime := time.Since(start)

	// The tool: plan, then two patches per cluster, 8 at a time unless told otherwise.
	args := []string{"env", "migrate", "--team", team, "--environment", "prod", "-l", selector,
		"--yes", "-o", "json", "--kubeconfig", kubeconfig}
	concurrency := 8 // the tool's default
	if c := os.Getenv("BUTLER_BENCH_CONCURRENCY"); c != "" {
		args = append(args, "--concurrency", c)
		if concurrency, err = strconv.Atoi(c); err != nil {
			t.Fatal(err)
		}
	}
	tool := measure(t, env, "tool", func() time.Duration {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.Output(); err != nil {
			t.Fatalf("butleradm: %v\n%s", err, out)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	})
	verify(t, ctx, env, n)
	bare.reset(t, ctx, concurrency)

	// The baseline: three kubectl passes over the same selection.
	kubectlRun := measure(t, env, "kubectl", func() time.Duration {
		var used time.Duration
		for _, args := range [][]string{
			{"annotate", "tenantclusters", "-l", selector, v1alpha1.AnnotationMigration + "=true"},
			{"label", "tenantclusters", "-l", selector, v1alpha1.LabelEnvironment + "=prod"},
			{"annotate", "tenantclusters", "-l", selector, v1alpha1.AnnotationMigration + "-"},
		} {
			args = append(args, "-n", team, "--kubeconfig", kubeconfig)
			c := exec.Command(kubectl, args...)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("kubectl %v: %v\n%s", args, err, tail(out))
			}
			used += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		}
		return used
	})
	verify(t, ctx, env, n)
	bare.reset(t, ctx, concurrency)

	// The bare client: the same two patches per cluster at the same concurrency, sent by
	// the smallest client there is (no plan, no checks, responses discarded). Where the API
	// server's CPU is the bound (loopback), this is the floor no client can beat.
	floor := measure(t, env, "floor", func() time.Duration {
		bare.migrate(t, ctx, concurrency)
		return 0 // in this process; not counted
	})
	verify(t, ctx, env, n)

	report := fmt.Sprintf("migrate %d clusters: butleradm env migrate %.2fs (%.0f clusters/s; the plan alone, --dry-run: %.2fs); kubectl annotate+label+annotate %.2fs (%.0f clusters/s); butleradm is %.1fx faster",
		n, tool.wall.Seconds(), float64(n)/tool.wall.Seconds(), planTime.Seconds(),
		kubectlRun.wall.Seconds(), float64(n)/kubectlRun.wall.Seconds(), ratio(kubectlRun, tool))
	if webhook {
		report += " (webhook enforcing)"
	}
	if rtt > 0 {
		report += fmt.Sprintf(" (clients %s round trip from the API server)", rtt)
	}
	report += fmt.Sprintf("\nbare client (the same %d patches from plain HTTP, %d clusters at a time): %.2fs; butleradm takes %.2fx its time; kubectl takes %.1fx (%d CPUs)",
		2*n, concurrency, floor.wall.Seconds(), tool.wall.Seconds()/floor.wall.Seconds(), ratio(kubectlRun, floor), runtime.NumCPU())
	report += fmt.Sprintf("\nCPU seconds (client, kube-apiserver, etcd): butleradm %.2f, %.2f, %.2f; kubectl %.2f, %.2f, %.2f; bare client -, %.2f, %.2f; kube-apiserver per patch: butleradm %.2f ms, kubectl %.2f ms, bare client %.2f ms",
		tool.client.Seconds(), tool.server.apiserver, tool.server.etcd,
		kubectlRun.client.Seconds(), kubectlRun.server.apiserver, kubectlRun.server.etcd,
		floor.server.apiserver, floor.server.etcd,
		tool.server.apiserver*1000/float64(2*n), kubectlRun.server.apiserver*1000/float64(3*n), floor.server.apiserver*1000/float64(2*n))
	t.Log(report)
	fmt.Println(report)
}

// phase is what one phase of the benchmark took.
type phase struct {
	wall   time.Duration
	client time.Duration // CPU time of the client processes
	server cpuTimes      // CPU time of the control plane during the phase
}

func ratio(slow, fast phase) float64 { return slow.wall.Seconds() / fast.wall.Seconds() }

// measure times run, the control plane's CPU time during it and, when BUTLER_BENCH_PPROF
// names a folder, records the API server's CPU profile of the phase into it.
func measure(t *testing.T, env *testenv.Env, name string, run func() (clientCPU time.Duration)) phase {
	t.Helper()
	stop := profileServer(t, env, name)
	cpu0 := serverCPU()
	start := time.Now()
	used := run()
	p := phase{wall: time.Since(start), client: used, server: serverCPU().minus(cpu0)}
	stop()
	return p
}

// behindProxy starts a latencyProxy in front of the API server and returns a copy of the
// kubeconfig file and of the admin's rest.Config that go through it. The API server's
// certificate names 127.0.0.1, which the proxy's address is too.
func behindProxy(t *testing.T, env *testenv.Env, kubeconfig string, rtt time.Duration) (string, *rest.Config) {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(env.Config.Host, "https://"), "/")
	p := startLatencyProxy(t, host, rtt/2)
	b, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(host)) {
		t.Fatalf("%s does not name the API server %s", kubeconfig, host)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(host), []byte(p.Addr())), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Host = "https://" + p.Addr()
	return path, cfg
}

// bareClient sends merge patches to one namespace's TenantClusters over plain HTTP with
// the admin's credentials.
type bareClient struct {
	env  *testenv.Env
	ns   string
	http *http.Client
	base string
}

func newBareClient(cfg *rest.Config, ns string, env *testenv.Env) (*bareClient, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(cfg.Host, "/") + "/apis/" + v1alpha1.GroupVersion.String() + "/namespaces/" + ns + "/tenantclusters/"
	return &bareClient{env: env, ns: ns, http: hc, base: base}, nil
}

func (b *bareClient) patch(ctx context.Context, name string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, b.base+name, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	req.Header.Set("Accept", "application/json")
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PATCH %s: %s", name, resp.Status)
	}
	return nil
}

// each lists the namespace's clusters and calls do for each, concurrency at a time.
func (b *bareClient) each(t *testing.T, ctx context.Context, concurrency int, do func(*v1alpha1.TenantCluster) error) {
	t.Helper()
	var list v1alpha1.TenantClusterList
	if err := b.env.Client.List(ctx, &list, client.InNamespace(b.ns)); err != nil {
		t.Fatal(err)
	}
	work := make(chan *v1alpha1.TenantCluster)
	errs := make(chan error, len(list.Items))
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if err := do(c); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range list.Items {
		work <- &list.Items[i]
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// migrate sends each cluster the migration's two patches, the first with the listed
// resourceVersion as precondition (as the tool does).
func (b *bareClient) migrate(t *testing.T, ctx context.Context, concurrency int) {
	removal := []byte(`{"metadata":{"annotations":{"` + v1alpha1.AnnotationMigration + `":null}}}`)
	b.each(t, ctx, concurrency, func(c *v1alpha1.TenantCluster) error {
		body, err := live.MigrationPatch(c.ResourceVersion, "prod")
		if err != nil {
			return err
		}
		if err := b.patch(ctx, c.Name, body); err != nil {
			return err
		}
		return b.patch(ctx, c.Name, removal)
	})
}

// reset takes the environment label off every cluster again, so the next phase starts
// from the same clusters. The webhook, which would refuse that, is dormant meanwhile.
func (b *bareClient) reset(t *testing.T, ctx context.Context, concurrency int) {
	if b.env.HasWebhook() {
		enforced := b.env.WebhookEnforced()
		b.env.EnforceWebhook(false)
		defer b.env.EnforceWebhook(enforced)
	}
	body := []byte(`{"metadata":{"labels":{"` + v1alpha1.LabelEnvironment + `":null}}}`)
	b.each(t, ctx, concurrency, func(c *v1alpha1.TenantCluster) error {
		return b.patch(ctx, c.Name, body)
	})
}

// profileServer, when BUTLER_BENCH_PPROF names a folder, records the API server's CPU
// profile (its /debug/pprof, which testenv turns on for this) over the phase's first two
// seconds, its steady state, into <folder>/apiserver-<phase>.pprof; the returned function
// waits for it. (A profile covers a fixed time: a cancelled request gets nothing back.)
func profileServer(t *testing.T, env *testenv.Env, phase string) func() {
	dir := os.Getenv("BUTLER_BENCH_PPROF")
	if dir == "" {
		return func() {}
	}
	hc, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := hc.Get(strings.TrimSuffix(env.Config.Host, "/") + "/debug/pprof/profile?seconds=2")
		if err != nil {
			t.Errorf("pprof: %v", err)
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Errorf("pprof: %v", err)
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "apiserver-"+phase+".pprof"), b, 0o644); err != nil {
			t.Error(err)
		}
	}()
	return func() { <-done }
}

// cpuTimes are the CPU seconds used so far by the control plane's processes.
type cpuTimes struct{ apiserver, etcd float64 }

func (a cpuTimes) minus(b cpuTimes) cpuTimes {
	return cpuTimes{a.apiserver - b.apiserver, a.etcd - b.etcd}
}

// serverCPU reads the CPU time of this test's kube-apiserver and etcd (children of this
// process) from /proc; zero where there is no /proc.
func serverCPU() cpuTimes {
	var ct cpuTimes
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": after the ")" come state, ppid, and utime and
		// stime as the 12th and 13th fields, in clock ticks.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 > len(s) {
			continue
		}
		comm := s[strings.IndexByte(s, '(')+1 : i]
		f := strings.Fields(s[i+2:])
		if len(f) < 13 || f[1] != self {
			continue
		}
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		sec := (ut + st) / 100 // USER_HZ is 100 on Linux
		switch comm {
		case "kube-apiserver":
			ct.apiserver += sec
		case "etcd":
			ct.etcd += sec
		}
	}
	return ct
}

// seed creates the team with a prod environment and n unlabelled clusters in its namespace.
func seed(t *testing.T, ctx context.Context, env *testenv.Env, n int) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}
	if err := env.Client.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	tm := &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: team},
		Spec: v1alpha1.TeamSpec{
			Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}},
		},
	}
	if err := env.Client.Create(ctx, tm); err != nil {
		t.Fatal(err)
	}
	tm.Status.Namespace = team
	if err := env.Client.Status().Update(ctx, tm); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 32)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			c := &v1alpha1.TenantCluster{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("legacy-%04d", i), Namespace: team,
					Labels:      map[string]string{"bench": "migrate", v1alpha1.LabelTeam: team},
					Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: fmt.Sprintf("user-%d@example.com", i%50)},
				},
				Spec: v1alpha1.TenantClusterSpec{
					KubernetesVersion: "v1.31.0",
					TeamRef:           &v1alpha1.LocalObjectReference{Name: team},
					Workers: v1alpha1.WorkersSpec{Replicas: 2, MachineTemplate: v1alpha1.MachineTemplate{
						CPU: 2, Memory: resource.MustParse("4Gi"), DiskSize: resource.MustParse("50Gi")}},
				},
			}
			if err := env.Client.Create(ctx, c); err != nil {
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

// verify checks that every cluster of the team's namespace is in prod without the
// annotation.
func verify(t *testing.T, ctx context.Context, env *testenv.Env, n int) {
	t.Helper()
	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace(team)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n {
		t.Fatalf("%s: %d clusters, want %d", team, len(list.Items), n)
	}
	for _, c := range list.Items {
		if c.Labels[v1alpha1.LabelEnvironment] != "prod" {
			t.Fatalf("%s/%s not in prod: %v", team, c.Name, c.Labels)
		}
		if _, ok := c.Annotations[v1alpha1.AnnotationMigration]; ok {
			t.Fatalf("%s/%s keeps the migration annotation", team, c.Name)
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
