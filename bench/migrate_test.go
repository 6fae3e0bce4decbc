// Package bench holds benchmarks that need the test control plane (internal/testenv).
//
// TestMigrate1000 migrates 1,000 TenantClusters into an environment with
// `butleradm env migrate`, and in the same run times the plain kubectl way over 1,000 other
// clusters of the same shape on the same control plane: `kubectl annotate` the migration
// annotation, `kubectl label` the environment, `kubectl annotate` to remove the annotation,
// each over the whole selection. It prints both figures and their ratio. Run it with
// bench/migrate.sh (it is skipped unless BUTLER_BENCH_MIGRATE=1).
package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

const selector = "bench=migrate"

func TestMigrate1000(t *testing.T) {
	if os.Getenv("BUTLER_BENCH_MIGRATE") != "1" {
		t.Skip("set BUTLER_BENCH_MIGRATE=1 (or run bench/migrate.sh) to run the migration benchmark")
	}
	n := 1000
	if v := os.Getenv("BUTLER_BENCH_CLUSTERS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	env := testenv.Start(t)
	ctx := context.Background()
	kubectl := filepath.Join(testenv.AssetsDir(), "kubectl")
	kubeconfig := env.Kubeconfig("admin")

	// The tool, built like a user gets it.
	bin := filepath.Join(t.TempDir(), "butleradm")
	build := exec.Command("go", "build", "-o", bin, "../cmd/butleradm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	for _, team := range []string{"bench-tool", "bench-kubectl"} {
		seed(t, ctx, env, team, n)
	}

	// The plan alone (reads, identity, preflight), for the record.
	start := time.Now()
	if out, err := exec.Command(bin, "env", "migrate", "--team", "bench-tool", "--environment", "prod", "-l", selector,
		"--dry-run", "-o", "json", "--kubeconfig", kubeconfig).Output(); err != nil {
		t.Fatalf("butleradm --dry-run: %v\n%s", err, out)
	}
	planTime := time.Since(start)

	// The tool: plan, then two patches per cluster, 8 at a time.
	start = time.Now()
	args := []string{"env", "migrate", "--team", "bench-tool", "--environment", "prod", "-l", selector,
		"--yes", "-o", "json", "--kubeconfig", kubeconfig}
	if c := os.Getenv("BUTLER_BENCH_CONCURRENCY"); c != "" {
		args = append(args, "--concurrency", c)
	}
	cmd := exec.Command(bin, args...)
	out, err := cmd.Output()
	toolTime := time.Since(start)
	if err != nil {
		t.Fatalf("butleradm: %v\n%s", err, out)
	}
	verify(t, ctx, env, "bench-tool", n)

	// The baseline: three kubectl passes over the same selection.
	start = time.Now()
	for _, args := range [][]string{
		{"annotate", "tenantclusters", "-l", selector, v1alpha1.AnnotationMigration + "=true"},
		{"label", "tenantclusters", "-l", selector, v1alpha1.LabelEnvironment + "=prod"},
		{"annotate", "tenantclusters", "-l", selector, v1alpha1.AnnotationMigration + "-"},
	} {
		args = append(args, "-n", "bench-kubectl", "--kubeconfig", kubeconfig)
		if out, err := exec.Command(kubectl, args...).CombinedOutput(); err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, tail(out))
		}
	}
	kubectlTime := time.Since(start)
	verify(t, ctx, env, "bench-kubectl", n)

	report := fmt.Sprintf("migrate %d clusters: butleradm env migrate %.2fs (%.0f clusters/s; the plan alone, --dry-run: %.2fs); kubectl annotate+label+annotate %.2fs (%.0f clusters/s); butleradm is %.1fx faster",
		n, toolTime.Seconds(), float64(n)/toolTime.Seconds(), planTime.Seconds(), kubectlTime.Seconds(), float64(n)/kubectlTime.Seconds(),
		kubectlTime.Seconds()/toolTime.Seconds())
	t.Log(report)
	fmt.Println(report)
}

// seed creates a team with a prod environment and n unlabelled clusters in its namespace.
func seed(t *testing.T, ctx context.Context, env *testenv.Env, team string, n int) {
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

// verify checks that every cluster of the namespace is in prod without the annotation.
func verify(t *testing.T, ctx context.Context, env *testenv.Env, ns string, n int) {
	t.Helper()
	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n {
		t.Fatalf("%s: %d clusters, want %d", ns, len(list.Items), n)
	}
	for _, c := range list.Items {
		if c.Labels[v1alpha1.LabelEnvironment] != "prod" {
			t.Fatalf("%s/%s not in prod: %v", ns, c.Name, c.Labels)
		}
		if _, ok := c.Annotations[v1alpha1.AnnotationMigration]; ok {
			t.Fatalf("%s/%s keeps the migration annotation", ns, c.Name)
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
