package bench

// TestList5000 lists 5,000 TenantClusters with `butlerctl cluster list -A` and with
// `kubectl get tenantclusters -A` (the kubectl of the test control plane's build), both as
// the envtest admin, both printing their default table to a pipe, alternating, in the same
// run. It prints each one's median wall time and peak RSS (the kernel's maxrss of the
// process) and the ratios. Run it with bench/list.sh (skipped unless BUTLER_BENCH_LIST=1).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

func TestList5000(t *testing.T) {
	if os.Getenv("BUTLER_BENCH_LIST") != "1" {
		t.Skip("set BUTLER_BENCH_LIST=1 (or run bench/list.sh) to run the listing benchmark")
	}
	n, runs := envInt(t, "BUTLER_BENCH_CLUSTERS", 5000), envInt(t, "BUTLER_BENCH_RUNS", 5)
	env := testenv.Start(t)
	kubectl := filepath.Join(testenv.AssetsDir(), "kubectl")
	kubeconfig := env.Kubeconfig("admin")
	bin := filepath.Join(t.TempDir(), "butlerctl")
	if out, err := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../cmd/butlerctl").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	seed(t, context.Background(), env, n)

	tool := []string{bin, "cluster", "list", "-A", "--kubeconfig", kubeconfig}
	base := []string{kubectl, "get", "tenantclusters", "-A", "--kubeconfig", kubeconfig}
	var toolRuns, kubectlRuns []sample
	run(t, tool, n) // one of each first, unmeasured: the page cache and the server's warm
	run(t, base, n)
	for i := 0; i < runs; i++ {
		toolRuns = append(toolRuns, run(t, tool, n))
		kubectlRuns = append(kubectlRuns, run(t, base, n))
	}
	tw, tr := medians(toolRuns)
	kw, kr := medians(kubectlRuns)
	report := fmt.Sprintf("list %d clusters, median of %d runs each: butlerctl cluster list -A %.2fs, peak RSS %.0f MiB; kubectl get tenantclusters -A %.2fs, peak RSS %.0f MiB; butlerctl/kubectl: time %.2fx, memory %.2fx",
		n, runs, tw.Seconds(), float64(tr)/1024, kw.Seconds(), float64(kr)/1024, tw.Seconds()/kw.Seconds(), float64(tr)/float64(kr))
	t.Log(report)
	fmt.Println(report)
}

// sample is one run: its wall time and peak resident set (KiB).
type sample struct {
	wall   time.Duration
	maxRSS int64
}

// run runs argv with stdout to a pipe and checks it printed a header and n rows.
func run(t *testing.T, argv []string, n int) sample {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(argv[0]), err, tail(errOut.Bytes()))
	}
	wall := time.Since(start)
	if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != n+1 {
		t.Fatalf("%s printed %d lines, want %d", filepath.Base(argv[0]), lines, n+1)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = ru.Maxrss // KiB on Linux
	}
	return sample{wall: wall, maxRSS: rss}
}

func medians(s []sample) (time.Duration, int64) {
	walls := make([]time.Duration, len(s))
	rss := make([]int64, len(s))
	for i := range s {
		walls[i], rss[i] = s[i].wall, s[i].maxRSS
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	return walls[len(s)/2], rss[len(s)/2]
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q is not a count", name, v)
	}
	return n
}
