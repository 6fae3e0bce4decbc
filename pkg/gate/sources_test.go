package gate

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

const payments = "../../examples/payments"

// maintenanceCRD is Butler's TenantCluster CRD as a newer platform ships it: it declares
// spec.maintenanceWindow, which these tools do not know.
const maintenanceCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: tenantclusters.butler.butlerlabs.dev}
spec:
  group: butler.butlerlabs.dev
  names: {kind: TenantCluster, plural: tenantclusters}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {maintenanceWindow: {type: string}}}
`

// onceStream is standard input that fails the test when it is read past its end.
type onceStream struct {
	t    *testing.T
	r    io.Reader
	ends int
}

func (s *onceStream) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if errors.Is(err, io.EOF) {
		if s.ends++; s.ends > 1 {
			s.t.Errorf("standard input read again after its end")
		}
	}
	return n, err
}

// countReads counts the manifest files runs read whole, by path, while the test runs.
func countReads(t *testing.T) map[string]int {
	reads := map[string]int{}
	fileRead = func(p string) { reads[p]++ }
	t.Cleanup(func() { fileRead = nil })
	return reads
}

func rules(r *check.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule+" "+f.Field)
	}
	return out
}

// TestRunPaths: a directory is read and judged, a state check.
func TestRunPaths(t *testing.T) {
	reads := countReads(t)
	r, err := Run(context.Background(), Request{Head: Source{Paths: []string{payments}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "state" || r.Unreadable || len(r.Objects) == 0 {
		t.Fatalf("report: mode %q, unreadable %v, %d objects", r.Mode, r.Unreadable, len(r.Objects))
	}
	if len(reads) != 7 {
		t.Errorf("read %d files, want the 7 of the example: %v", len(reads), reads)
	}
}

// TestRunStdin: "-" reads Source.Stdin, once, with a directory beside it whose CRDs
// declare a field the cluster on standard input uses: not judged, a warning.
func TestRunStdin(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "crds", "tenantcluster.yaml"), maintenanceCRD)
	cluster, err := os.ReadFile(filepath.Join(payments, "clusters", "bob-checkout.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	in := &onceStream{t: t, r: strings.NewReader(strings.Replace(string(cluster), "spec:\n", "spec:\n  maintenanceWindow: sun\n", 1))}
	reads := countReads(t)
	r, err := Run(context.Background(), Request{Head: Source{Paths: []string{filepath.Join(dir, "crds"), manifest.Stdin}, Stdin: in}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unreadable || !strings.Contains(strings.Join(rules(r), ","), RuleNotJudged+" spec.maintenanceWindow") {
		t.Errorf("findings %v, want spec.maintenanceWindow not judged", rules(r))
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", p, n)
		}
	}
}

// TestRunChangeReadsEachFileOnce: a change from a base directory whose CRDs declare a
// field head's cluster uses reads every file of both trees once: the base's files read to
// find its CRDs are those its load decodes.
func TestRunChangeReadsEachFileOnce(t *testing.T) {
	root := t.TempDir()
	base, head := filepath.Join(root, "base"), filepath.Join(root, "head")
	copyTree(t, payments, base)
	write(t, filepath.Join(base, "crds", "tenantcluster.yaml"), maintenanceCRD)
	copyTree(t, base, head)
	edit(t, filepath.Join(head, "clusters", "bob-checkout.yaml"), "spec:\n", "spec:\n  maintenanceWindow: sun\n")
	reads := countReads(t)
	r, err := Run(context.Background(), Request{Head: Source{Paths: []string{head}}, Base: Source{Paths: []string{base}},
		Author: policy.Identity{Username: "carol@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "change" || !strings.Contains(strings.Join(rules(r), ","), RuleNotJudged+" spec.maintenanceWindow") {
		t.Errorf("mode %q, findings %v: want a change check with spec.maintenanceWindow not judged", r.Mode, rules(r))
	}
	if len(reads) != 16 {
		t.Errorf("read %d files, want the 8 of each tree: %v", len(reads), reads)
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", p, n)
		}
	}
}

// platform is a Platform over objects already read.
type platform struct {
	objs  []manifest.Object
	err   error
	calls int
}

func (p *platform) Objects(context.Context) ([]manifest.Object, error) {
	p.calls++
	return p.objs, p.err
}

// TestRunLive: the live platform completes the tree (its Team, which the tree's clusters
// name, is the platform's), and makes the tree the whole platform; its error is Run's.
func TestRunLive(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join(payments, "clusters"), filepath.Join(dir, "clusters"))
	copyTree(t, filepath.Join(payments, "provider.yaml"), filepath.Join(dir, "provider.yaml"))
	req := Request{Head: Source{Paths: []string{dir}}}
	without, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	team, err := manifest.Load([]string{filepath.Join(payments, "team.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := &platform{objs: team.Objects}
	for i := range live.objs {
		live.objs[i].Source.File = check.LiveFile
	}
	req.Live = live
	with, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if live.calls != 1 {
		t.Errorf("the platform was read %d times, want once", live.calls)
	}
	if without.Warnings == 0 || with.Warnings >= without.Warnings {
		t.Errorf("warnings without the platform %d (%v), with it %d (%v): want fewer with its Team", without.Warnings, rules(without), with.Warnings, rules(with))
	}
	req.Live = &platform{err: errors.New("forbidden")}
	if _, err := Run(context.Background(), req); err == nil || !strings.Contains(err.Error(), "reading the platform") {
		t.Errorf("a platform that cannot be read: %v", err)
	}
}

// TestRunRevisionBadInput: a revision the repository does not hold is ErrBadInput, and
// nothing it extracted is left behind.
func TestRunRevisionBadInput(t *testing.T) {
	repo := gitRepo(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := Run(context.Background(), Request{Head: Source{Paths: []string{filepath.Join(repo, "payments")}},
		Base: Source{Revision: "no-such-branch"}, Repo: repo, Author: policy.Identity{Username: "carol@example.com"}})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "no such revision") {
		t.Errorf("Run: %v, want ErrBadInput naming the revision", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// gitRepo is a new git repository holding the worked example as payments/, committed.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	copyTree(t, payments, filepath.Join(repo, "payments"))
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

// TestRunRevisionReadsEachFileOnce: a change from a git revision, whose CRDs declare a
// field head's cluster uses, with Repo naming the repository (the working directory is
// elsewhere): each file of head and of the extracted base is read once, findings name the
// repository's paths, and the base tree is removed.
func TestRunRevisionReadsEachFileOnce(t *testing.T) {
	repo := gitRepo(t)
	write(t, filepath.Join(repo, "payments", "crds", "tenantcluster.yaml"), maintenanceCRD)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-qm", "crds"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	edit(t, filepath.Join(repo, "payments", "clusters", "bob-checkout.yaml"), "spec:\n", "spec:\n  maintenanceWindow: sun\n")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	reads := countReads(t)
	r, err := Run(context.Background(), Request{Head: Source{Paths: []string{filepath.Join(repo, "payments")}}, Base: Source{Revision: "HEAD"},
		Repo: repo, Author: policy.Identity{Username: "carol@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, f := range r.Findings {
		if f.Rule == RuleNotJudged {
			where = append(where, f.File)
		}
	}
	if r.Mode != "change" || strings.Join(where, ",") != "payments/clusters/bob-checkout.yaml" {
		t.Errorf("mode %q, not judged in %v: want a change check with bob-checkout's field not judged", r.Mode, where)
	}
	if len(reads) != 16 {
		t.Errorf("read %d files, want the 8 of each tree: %v", len(reads), reads)
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", p, n)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}
