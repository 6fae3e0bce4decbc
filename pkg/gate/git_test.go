package gate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

const sandbox3 = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: sandbox-3
  namespace: payments
  labels:
    butler.butlerlabs.dev/environment: dev
  annotations:
    butler.butlerlabs.dev/creator-email: carol@example.com
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: payments}
  providerConfigRef: {name: harvester-prod, namespace: butler-system}
  workers:
    replicas: 2
    machineTemplate: {cpu: 2, memory: 2Gi, diskSize: 100Gi}
`

// TestChangeAgainstGitRef builds a repository with a base commit (the worked example) and
// a head commit that adds Carol's third dev cluster and deletes a cluster, and runs the
// change check against the base ref: the base is read from git, not from the working tree.
func TestChangeAgainstGitRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	copyTree(t, "../../examples/payments", filepath.Join(repo, "payments"))
	// Left out by the loader, as in a directory: a tool folder's file and a non-manifest.
	write(t, filepath.Join(repo, "payments", ".github", "ci.yaml"), "not: [yaml")
	write(t, filepath.Join(repo, "payments", "notes.txt"), "kind: nothing")
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	write(t, filepath.Join(repo, "payments", "clusters", "sandbox-3.yaml"), sandbox3)
	if err := os.Remove(filepath.Join(repo, "payments", "clusters", "bob-checkout.yaml")); err != nil {
		t.Fatal(err)
	}
	gitRun("add", "-A")
	gitRun("commit", "-qm", "head")
	t.Chdir(repo)

	o := &flags{Manifests: []string{"payments"}, Base: "HEAD~1", Author: policy.Identity{Username: "carol@example.com"}}
	r, err := judge(context.Background(), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "change" {
		t.Fatalf("mode %q, want change", r.Mode)
	}
	var sawCap, sawDelete bool
	for _, f := range r.Findings {
		switch {
		case f.File == "payments/clusters/sandbox-3.yaml" && f.Rule == policy.RuleMemberMaxClusters && f.Severity == check.SeverityError:
			sawCap = true
		case f.File == "payments/clusters/bob-checkout.yaml" && f.Rule == check.RuleRole:
			// Carol is an operator in prod (the team's role): she may delete it.
			t.Errorf("unexpected role finding: %+v", f)
		case f.Name == "bob-checkout":
			sawDelete = true
		}
	}
	if !sawCap {
		t.Errorf("no member-max-clusters error on the added cluster; findings: %+v", r.Findings)
	}
	if sawDelete {
		t.Errorf("the deleted cluster was judged for more than the author's role: %+v", r.Findings)
	}

	// The same change from someone the base does not name: one finding says so, rather
	// than a role refusal on each object.
	o.Author = policy.Identity{Username: "mallory@example.com"}
	r, err = judge(context.Background(), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		if f.Rule == check.RuleRole {
			t.Errorf("a role finding for an unknown author: %+v", f)
		}
		if f.Rule == check.RuleAuthorUnknown && strings.Contains(f.Message, `"mallory@example.com" matches no team member`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no author-unknown finding for an outsider; findings: %+v", r.Findings)
	}

	// An unknown ref is unreadable input.
	o.Base = "no-such-ref"
	if _, err := judge(context.Background(), nil, o); err == nil {
		t.Error("an unknown base ref was accepted")
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, filepath.Join(to, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBaseSameLoader: --base reads the base through the loader the head is read by, so a
// change is seen alike from the repository root and from a subdirectory, behind a
// symlinked file, inside a submodule, and with overlapping --manifests; findings name
// files relative to the repository root wherever check runs.
func TestBaseSameLoader(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tmp := t.TempDir()
	repo, subRepo := filepath.Join(tmp, "repo"), filepath.Join(tmp, "sub")
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com",
			"-c", "commit.gpgsign=false", "-c", "protocol.file.allow=always"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A submodule holding one of the team's clusters.
	if err := os.MkdirAll(subRepo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(subRepo, "init", "-q")
	write(t, filepath.Join(subRepo, "sub-cluster.yaml"), strings.ReplaceAll(sandbox3, "sandbox-3", "sub-cluster"))
	gitIn(subRepo, "add", "-A")
	gitIn(subRepo, "commit", "-qm", "sub")

	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(repo, "init", "-q")
	copyTree(t, "../../examples/payments", filepath.Join(repo, "payments"))
	// An outsider the platform knows (a User in no team), so deletions get role findings.
	write(t, filepath.Join(repo, "payments", "mallory.yaml"), "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: mallory\nspec:\n  email: mallory@example.com\n")
	// A cluster kept outside the manifests and linked in.
	write(t, filepath.Join(repo, "common", "linked.yaml"), strings.ReplaceAll(sandbox3, "sandbox-3", "linked"))
	if err := os.Symlink("../../common/linked.yaml", filepath.Join(repo, "payments", "clusters", "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	gitIn(repo, "submodule", "add", "-q", subRepo, "payments/sub")
	gitIn(repo, "add", "-A")
	gitIn(repo, "commit", "-qm", "base")

	// The pull request deletes the linked cluster and the submodule's cluster: an outsider
	// may not delete either.
	if err := os.Remove(filepath.Join(repo, "payments", "clusters", "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, "payments", "sub", "sub-cluster.yaml")); err != nil {
		t.Fatal(err)
	}

	verdict := func(dir string, manifests ...string) []string {
		t.Helper()
		t.Chdir(dir)
		o := &flags{Manifests: manifests, Base: "HEAD", Author: policy.Identity{Username: "mallory@example.com"}}
		r, err := judge(context.Background(), nil, o)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{fmt.Sprintf("%d errors, %d warnings", r.Errors, r.Warnings)}
		for _, f := range r.Findings {
			out = append(out, fmt.Sprintf("%s:%d %s %s %s", f.File, f.Line, f.Severity, f.Name, f.Rule))
		}
		return out
	}
	root := verdict(repo, "payments")
	deleted := map[string]bool{}
	for _, l := range root {
		for _, name := range []string{"linked", "sub-cluster"} {
			if strings.Contains(l, " "+name+" "+check.RuleRole) {
				deleted[name] = true
			}
		}
	}
	if !deleted["linked"] || !deleted["sub-cluster"] {
		t.Fatalf("the deletions behind a symlink and in a submodule were not judged:\n%s", strings.Join(root, "\n"))
	}
	for _, c := range []struct {
		name      string
		dir       string
		manifests []string
	}{
		{"from a subdirectory", filepath.Join(repo, "payments"), []string{"."}},
		{"from a deeper subdirectory", filepath.Join(repo, "payments", "clusters"), []string{".."}},
		{"with overlapping --manifests", repo, []string{"payments", "payments/clusters", "payments/team.yaml"}},
	} {
		if got := verdict(c.dir, c.manifests...); strings.Join(got, "\n") != strings.Join(root, "\n") {
			t.Errorf("%s: verdict\n%s\nwant (from the root)\n%s", c.name, strings.Join(got, "\n"), strings.Join(root, "\n"))
		}
	}
}

// TestBaseShallowClone: a base the clone does not hold is an error that says how to fetch it.
func TestBaseShallowClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tmp := t.TempDir()
	origin, clone := filepath.Join(tmp, "origin"), filepath.Join(tmp, "clone")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", origin)
	copyTree(t, "../../examples/payments", filepath.Join(origin, "payments"))
	run("-C", origin, "add", "-A")
	run("-C", origin, "commit", "-qm", "one")
	write(t, filepath.Join(origin, "payments", "clusters", "sandbox-3.yaml"), sandbox3)
	run("-C", origin, "add", "-A")
	run("-C", origin, "commit", "-qm", "two")
	run("clone", "-q", "--depth=1", "file://"+origin, clone)
	t.Chdir(clone)
	o := &flags{Manifests: []string{"payments"}, Base: "HEAD~1", Author: policy.Identity{Username: "carol@example.com"}}
	_, err := judge(context.Background(), nil, o)
	if err == nil || !strings.Contains(err.Error(), "fetch-depth: 0") || !strings.Contains(err.Error(), "git fetch --deepen") {
		t.Fatalf("error %v, want one naming fetch-depth: 0 and git fetch --deepen", err)
	}
}

// TestBaseLinksUnchangedFiles: --base puts in its base tree the working tree's own file
// where git finds it unchanged (linked, not written again), and the revision's bytes where
// the working tree differs, an edit of the same size included.
func TestBaseLinksUnchangedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	write(t, filepath.Join(repo, "m", "same.yaml"), "kind: same\n")
	write(t, filepath.Join(repo, "m", "edited.yaml"), "kind: old1\n")
	write(t, filepath.Join(repo, "m", "grown.yaml"), "kind: old\n")
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	write(t, filepath.Join(repo, "m", "edited.yaml"), "kind: new1\n") // the same size
	write(t, filepath.Join(repo, "m", "grown.yaml"), "kind: longer\n")
	t.Chdir(repo)

	r, err := openRepo(context.Background(), "", "HEAD", t.TempDir(), []string{"m"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for name, want := range map[string]string{"same.yaml": "kind: same\n", "edited.yaml": "kind: old1\n", "grown.yaml": "kind: old\n"} {
		p := filepath.Join(r.tmp, "m", name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != want {
			t.Errorf("%s in the base tree holds %q, want the revision's %q", name, data, want)
		}
		base, err1 := os.Stat(p)
		work, err2 := os.Stat(filepath.Join(repo, "m", name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if linked := os.SameFile(base, work); linked != (name == "same.yaml") {
			t.Errorf("%s: linked from the working tree: %v", name, linked)
		}
	}
}

// TestBaseTreeUnseenByHead: the base tree is extracted while head loads; with the
// temporary directory below the manifests, head's load does not read it.
func TestBaseTreeUnseenByHead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	copyTree(t, "../../examples/payments", filepath.Join(repo, "payments"))
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	// Edited: the base tree holds the revision's copy, a file of its own.
	edit(t, filepath.Join(repo, "payments", "clusters", "bob-checkout.yaml"), "replicas: 3", "replicas: 4")
	t.Chdir(repo)
	objects := func(scratch ...string) int {
		t.Helper()
		opts := gitops.Options{Root: repo}
		opts.Manifest.Scratch = scratch
		head, err := gitops.Load([]string{"payments"}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		return len(head.Raw.Objects)
	}
	want := objects()
	tmp := filepath.Join(repo, "payments", "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	p := (&run{Request: Request{Options: Options{GitTimeout: defaultGitTimeout}}}).startRepo(context.Background(), "HEAD", []string{"payments"})
	r, err := p.take()
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if !strings.HasPrefix(r.tmp, tmp) || r.tmp != p.tmp {
		t.Fatalf("the base tree is at %s, not below %s", r.tmp, tmp)
	}
	if got := objects(p.tmp); got != want {
		t.Errorf("head with the base tree below it: %d objects, want %d", got, want)
	}
	// The walk would read it but for Scratch (judge passes it): its objects twice.
	if _, err := gitops.Load([]string{"payments"}, nil, gitops.Options{Root: repo}); err == nil || !strings.Contains(err.Error(), "duplicate object") {
		t.Errorf("without Scratch: %v, want the base tree's objects read as duplicates", err)
	}
}
