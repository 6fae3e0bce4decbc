package bench

// TestApply1000 applies 1,000 TenantClusters, one file each in a directory, with
// `butlerctl apply -f DIR` and with `kubectl apply --server-side -f DIR` (the kubectl of
// the test control plane's build), both as the envtest admin, alternating, in the same run:
// each run creates the clusters (they are deleted before it), then a second run of the same
// command applies them again (every one unchanged). It prints the median wall time of each
// and the ratio butlerctl/kubectl (the target is at most 1.5). Run it with bench/apply.sh
// (skipped unless BUTLER_BENCH_APPLY=1).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestApply1000(t *testing.T) {
	if os.Getenv("BUTLER_BENCH_APPLY") != "1" {
		t.Skip("set BUTLER_BENCH_APPLY=1 (or run bench/apply.sh) to run the apply benchmark")
	}
	n, runs := envInt(t, "BUTLER_BENCH_CLUSTERS", 1000), envInt(t, "BUTLER_BENCH_RUNS", 3)
	env := testenv.Start(t)
	ctx := context.Background()
	kubectl := filepath.Join(testenv.AssetsDir(), "kubectl")
	kubeconfig := env.Kubeconfig("admin")
	bin := filepath.Join(t.TempDir(), "butlerctl")
	if out, err := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../cmd/butlerctl").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	seedTeam(t, ctx, env)
	dir := writeClusters(t, n)

	tool := []string{bin, "apply", "-f", dir, "--kubeconfig", kubeconfig}
	if c := os.Getenv("BUTLER_BENCH_CONCURRENCY"); c != "" {
		tool = append(tool, "--concurrency", c)
	}
	base := []string{kubectl, "apply", "--server-side", "-f", dir, "--kubeconfig", kubeconfig}
	var toolCreate, toolAgain, kubectlCreate, kubectlAgain []time.Duration
	for i := 0; i < runs; i++ {
		for _, c := range []struct {
			argv          []string
			create, again *[]time.Duration
		}{{tool, &toolCreate, &toolAgain}, {base, &kubectlCreate, &kubectlAgain}} {
			clear(t, ctx, env)
			*c.create = append(*c.create, timed(t, c.argv, n))
			*c.again = append(*c.again, timed(t, c.argv, n))
		}
	}
	// The preflight alone (reads, identity, every object judged as an update), for the record.
	plan := timed(t, append(append([]string{}, tool...), "--dry-run=client"), n)
	tc, ta, kc, ka := median(toolCreate), median(toolAgain), median(kubectlCreate), median(kubectlAgain)
	report := fmt.Sprintf("apply %d clusters (-f DIR, a file each), median of %d runs: create: butlerctl apply %.2fs, kubectl apply --server-side %.2fs, butlerctl/kubectl %.2fx; again (unchanged): butlerctl %.2fs, kubectl %.2fs, %.2fx; butlerctl's preflight alone (--dry-run=client) %.2fs",
		n, runs, tc.Seconds(), kc.Seconds(), tc.Seconds()/kc.Seconds(), ta.Seconds(), ka.Seconds(), ta.Seconds()/ka.Seconds(), plan.Seconds())
	t.Log(report)
	fmt.Println(report)
}

// seedTeam creates the benchmark's team and its namespace, without limits.
func seedTeam(t *testing.T, ctx context.Context, env *testenv.Env) {
	t.Helper()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	tm := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: team}}
	if err := env.Client.Create(ctx, tm); err != nil {
		t.Fatal(err)
	}
	tm.Status.Namespace = team
	if err := env.Client.Status().Update(ctx, tm); err != nil {
		t.Fatal(err)
	}
}

// writeClusters writes n TenantClusters of the team into a new directory, one file each.
func writeClusters(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		doc := fmt.Sprintf(`apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: app-%04d
  namespace: %s
  labels:
    bench: apply
spec:
  kubernetesVersion: v1.31.0
  teamRef:
    name: %s
  workers:
    replicas: 2
    machineTemplate:
      cpu: 2
      memory: 4Gi
      diskSize: 50Gi
`, i, team, team)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("app-%04d.yaml", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// clear deletes the team's clusters and waits until none is left.
func clear(t *testing.T, ctx context.Context, env *testenv.Env) {
	t.Helper()
	if err := env.Client.DeleteAllOf(ctx, &v1alpha1.TenantCluster{}, client.InNamespace(team)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute) // a hang guard only
	for {
		var list v1alpha1.TenantClusterList
		if err := env.Client.List(ctx, &list, client.InNamespace(team)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d clusters left after deleting them all", len(list.Items))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// timed runs argv and checks that it printed a line for each of the n objects.
func timed(t *testing.T, argv []string, n int) time.Duration {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(argv[0]), err, tail(out))
	}
	t.Logf("%s %s: %.2fs wall, %.2fs CPU", filepath.Base(argv[0]), argv[1], wall.Seconds(),
		(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
	if lines := len(splitLines(out)); lines != n {
		t.Fatalf("%s printed %d lines, want %d", filepath.Base(argv[0]), lines, n)
	}
	return wall
}

func splitLines(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	return out
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
