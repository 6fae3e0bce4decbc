package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// hookStore is a store with a hook in front of MigrateCluster, to play a server that
// conflicts, refuses or fails, or someone editing clusters during the run.
type hookStore struct {
	store.Store
	m    store.Migrator
	hook func(ctx context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error, bool)
}

func (s *hookStore) MigrateCluster(ctx context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error) {
	if s.hook != nil {
		if r, err, handled := s.hook(ctx, c, env); handled {
			return r, err
		}
	}
	return s.m.MigrateCluster(ctx, c, env)
}

// payments copies examples/payments into a temporary directory, with extra legacy
// clusters legacy-00 .. legacy-<n-1> (unlabelled, owned by nobody).
func payments(t *testing.T, extra int) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("..", "..", "..", "..", "examples", "payments")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < extra; i++ {
		doc := fmt.Sprintf(`apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: legacy-%02d
  namespace: payments
spec:
  kubernetesVersion: v1.31.0
  teamRef:
    name: payments
  workers:
    replicas: 1
    machineTemplate: {cpu: 1, memory: 2Gi, diskSize: 20Gi}
`, i)
		if err := os.WriteFile(filepath.Join(dst, "clusters", fmt.Sprintf("legacy-%02d.yaml", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

type result struct {
	code           int
	err            error
	stdout, stderr string
}

type runOpts struct {
	dir   string
	tty   bool
	stdin string
	hook  func(ctx context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error, bool)
	ctx   context.Context
	out   string
	as    string
}

func runCmd(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(o.stdin)
	ios.SetTTY(o.tty, false, o.tty)
	if o.out == "" {
		o.out = "table"
	}
	if o.as == "" {
		o.as = "alice@example.com"
	}
	f := &factory.Factory{
		IOStreams: ios,
		Options:   &factory.GlobalOptions{Manifests: []string{o.dir}, As: o.as, Output: o.out},
		Now:       time.Now,
		NewStore: func(ctx context.Context, f *factory.Factory) (store.Store, error) {
			s, err := offline.Load(f.Options.Manifests, f.IOStreams.In, f.Options.As, nil)
			if err != nil {
				return nil, err
			}
			return &hookStore{Store: s, m: s, hook: o.hook}, nil
		},
	}
	cmd := NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := cmd.ExecuteContext(ctx)
	return result{code: cmdutil.CodeOf(err), err: err, stdout: out.String(), stderr: errOut.String()}
}

func envOf(t *testing.T, dir, name string) string {
	t.Helper()
	s, err := offline.Load([]string{dir}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.GetCluster(context.Background(), "payments", name)
	if err != nil {
		t.Fatal(err)
	}
	// On manifests a move writes the label with the annotation the server needs for it
	// (the next run removes it): "true" or nothing.
	if v, ok := c.Annotations[v1alpha1.AnnotationMigration]; ok && v != "true" {
		t.Errorf("%s has the migration annotation set to %q", name, v)
	}
	return c.Labels[v1alpha1.LabelEnvironment]
}

func TestTerminalConfirmation(t *testing.T) {
	base := []string{"ledger-legacy", "--team", "payments", "--environment", "prod"}

	dir := payments(t, 0)
	r := runCmd(t, runOpts{dir: dir, tty: true, stdin: "n\n"}, base...)
	if r.code != cmdutil.ExitFailure || r.err.Error() != `migration cancelled: input "n"` {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if !strings.Contains(r.stderr, `Apply environment "prod" label to 1 cluster(s)? [y/N]: `) {
		t.Errorf("stderr %q", r.stderr)
	}
	if envOf(t, dir, "ledger-legacy") != "" {
		t.Fatal("changed after a no")
	}

	r = runCmd(t, runOpts{dir: dir, tty: true, stdin: "YES\n"}, base...)
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if got := envOf(t, dir, "ledger-legacy"); got != "prod" {
		t.Fatalf("env %q", got)
	}
	// The progress bar, on a terminal, drawn in place on stderr and ended with a newline.
	if !strings.Contains(r.stderr, "\r\x1b[KMigrating to \"prod\" [##############################] 1/1\n") {
		t.Errorf("no progress bar in %q", r.stderr)
	}
}

func TestRelabelPrompt(t *testing.T) {
	args := []string{"carol-sandbox-1", "--relabel", "--team", "payments", "--environment", "prod"}
	const relabelQ = "Relabel is destructive and rewrites existing environment assignments. Type RELABEL to proceed: "

	// y passes the first question but not the second (butler-cli let it through).
	dir := payments(t, 0)
	r := runCmd(t, runOpts{dir: dir, tty: true, stdin: "y\ny\n"}, args...)
	if r.code != cmdutil.ExitFailure || r.err.Error() != `migration cancelled: input "y"` || !strings.Contains(r.stderr, relabelQ) {
		t.Fatalf("exit %d: %v; stderr %q", r.code, r.err, r.stderr)
	}
	if envOf(t, dir, "carol-sandbox-1") != "dev" {
		t.Fatal("relabelled without RELABEL")
	}
	// --yes skips the first question, not the word.
	r = runCmd(t, runOpts{dir: dir, tty: true, stdin: "relabel\n"}, append(args, "--yes")...)
	if r.code != cmdutil.ExitFailure || strings.Contains(r.stderr, "[y/N]") {
		t.Fatalf("exit %d: %v; stderr %q", r.code, r.err, r.stderr)
	}
	r = runCmd(t, runOpts{dir: dir, tty: true, stdin: "RELABEL\n"}, append(args, "--yes")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if got := envOf(t, dir, "carol-sandbox-1"); got != "prod" {
		t.Fatalf("env %q", got)
	}
}

func TestConflictRereadsAndReplans(t *testing.T) {
	dir := payments(t, 2)
	var once sync.Once
	var inner *hookStore
	hook := func(ctx context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error, bool) {
		switch c.Name {
		case "legacy-00":
			// Someone else edits it first (another label): one Conflict, then it goes.
			handled := false
			once.Do(func() { handled = true })
			if handled {
				return store.MigrateResult{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name, errors.New("modified")), true
			}
		case "legacy-01":
			// Someone else puts it in dev meanwhile: re-planned, it stays there.
			other := c.DeepCopy()
			if _, err := inner.m.MigrateCluster(ctx, other, "dev"); err != nil {
				t.Errorf("concurrent edit: %v", err)
			}
			r, err := inner.m.MigrateCluster(ctx, c, env)
			return r, err, true
		}
		return store.MigrateResult{}, nil, false
	}
	ios, _, out, _ := iostreams.Test()
	f := &factory.Factory{
		IOStreams: ios,
		Options:   &factory.GlobalOptions{Manifests: []string{dir}, As: "alice@example.com", Output: "json"},
		Now:       time.Now,
		NewStore: func(ctx context.Context, f *factory.Factory) (store.Store, error) {
			s, err := offline.Load(f.Options.Manifests, nil, f.Options.As, nil)
			if err != nil {
				return nil, err
			}
			inner = &hookStore{Store: s, m: s, hook: hook}
			return inner, nil
		},
	}
	cmd := NewCmd(f, nil)
	cmd.SetArgs([]string{"legacy-00", "legacy-01", "--team", "payments", "--environment", "prod", "--yes"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got Output
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Cluster: "legacy-00", To: "prod", Status: StatusMigrated, Attempts: 2},
		{Cluster: "legacy-01", To: "prod", Status: StatusSkipped, Attempts: 1,
			Message: `changed during the run, so planned again: in environment "dev"; pass --relabel to move it`},
	}
	if fmt.Sprint(got.Results) != fmt.Sprint(want) {
		t.Errorf("results\n%+v\nwant\n%+v", got.Results, want)
	}
	if got.Summary.Conflicts != 2 || got.Summary.Migrated != 1 || got.Summary.Skipped != 1 {
		t.Errorf("summary %+v", got.Summary)
	}
	if envOf(t, dir, "legacy-00") != "prod" || envOf(t, dir, "legacy-01") != "dev" {
		t.Error("wrong final environments")
	}
}

func TestFailuresDoNotStopTheOthers(t *testing.T) {
	dir := payments(t, 6)
	hook := func(_ context.Context, c *v1alpha1.TenantCluster, _ string) (store.MigrateResult, error, bool) {
		gr := v1alpha1.Resource("tenantclusters")
		switch c.Name {
		case "legacy-01":
			return store.MigrateResult{}, apierrors.NewForbidden(gr, c.Name, errors.New(`admission webhook "vtenantcluster.kb.io" denied the request: no`)), true
		case "legacy-02":
			return store.MigrateResult{}, apierrors.NewNotFound(gr, c.Name), true
		case "legacy-03":
			return store.MigrateResult{Labeled: true}, errors.New("connection reset"), true
		}
		return store.MigrateResult{}, nil, false
	}
	r := runCmd(t, runOpts{dir: dir, hook: hook}, "--all", "--team", "payments", "--environment", "dev", "--yes")
	if r.code != cmdutil.ExitFailure {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	for _, want := range []string{
		`error: legacy-01 denied: tenantclusters.butler.butlerlabs.dev "legacy-01" is forbidden: admission webhook "vtenantcluster.kb.io" denied the request: no`,
		`error: legacy-03 failed: the environment label is set, but removing the butler.butlerlabs.dev/migration-operation annotation failed: connection reset; run the migration again to remove it`,
		"1 cluster(s) failed; the others were migrated. Run the same command again to retry them",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, want := range []string{
		"tenantcluster.butler.butlerlabs.dev/legacy-02 gone: deleted during the run",
		"Summary: 4 migrated, 3 skipped, 1 gone, 1 denied, 1 failed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, n := range []string{"ledger-legacy", "legacy-00", "legacy-04", "legacy-05"} {
		if got := envOf(t, dir, n); got != "dev" {
			t.Errorf("%s: env %q", n, got)
		}
	}

	// Only refusals: exit 4.
	dir = payments(t, 2)
	r = runCmd(t, runOpts{dir: dir, hook: hook}, "--all", "--team", "payments", "--environment", "dev", "--yes")
	if r.code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	dir := payments(t, 24)
	var inFlight, peak atomic.Int32
	hook := func(context.Context, *v1alpha1.TenantCluster, string) (store.MigrateResult, error, bool) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		return store.MigrateResult{}, nil, false
	}
	r := runCmd(t, runOpts{dir: dir, hook: hook}, "--all", "--team", "payments", "--environment", "dev", "--yes", "--concurrency", "3")
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak concurrency %d, want 3 (at least 2 on a busy machine)", p)
	}
	if !strings.Contains(r.stdout, "Summary: 25 migrated, 3 skipped, 0 failed") {
		t.Errorf("stdout %s", r.stdout)
	}
	// Plain progress lines without a terminal, one per cluster.
	if n := strings.Count(r.stderr, "\n"); n != 25 || !strings.Contains(r.stderr, "[25/25] ") {
		t.Errorf("%d progress lines:\n%s", n, r.stderr)
	}
}

func TestInterruptedRunFinishesOnRerun(t *testing.T) {
	dir := payments(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hook := func(_ context.Context, c *v1alpha1.TenantCluster, _ string) (store.MigrateResult, error, bool) {
		if c.Name == "legacy-01" {
			cancel() // Ctrl-C while this one is in flight: it finishes, nothing new starts
		}
		return store.MigrateResult{}, nil, false
	}
	r := runCmd(t, runOpts{dir: dir, hook: hook, ctx: ctx}, "--all", "--team", "payments", "--environment", "dev", "--yes", "--concurrency", "1")
	if r.code != cmdutil.ExitFailure {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if !strings.Contains(r.stdout, "Summary: 3 migrated, 3 skipped, 3 not attempted, 0 failed") ||
		!strings.Contains(r.stderr, "interrupted: run the same command again to finish") {
		t.Fatalf("stdout %s\nstderr %s", r.stdout, r.stderr)
	}
	// The same command again finishes the job (and removes the annotations of the moves
	// already made), and a third run changes nothing.
	r = runCmd(t, runOpts{dir: dir}, "--all", "--team", "payments", "--environment", "dev", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "Summary: 3 migrated, 3 cleaned up, 3 skipped, 0 failed") {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stdout)
	}
	r = runCmd(t, runOpts{dir: dir}, "--all", "--team", "payments", "--environment", "dev", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "Summary: 0 migrated, 3 cleaned up, 6 skipped, 0 failed") {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stdout)
	}
	before := snapshot(t, dir)
	r = runCmd(t, runOpts{dir: dir}, "--all", "--team", "payments", "--environment", "dev", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "no clusters require relabeling") {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stdout)
	}
	if after := snapshot(t, dir); !bytes.Equal(before, after) {
		t.Error("a re-run changed files")
	}
}

// snapshot concatenates every file of dir, in order.
func snapshot(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.WriteString(p + "\n")
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
