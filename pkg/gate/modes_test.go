package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// TestReportsSameInBothModes: every rule over clusters reaches the same verdicts whatever
// the loads kept of the clusters (each whole, or each it can as a record read again when
// judged): the state check of the worked example, of a Flux tree, of a generated tree
// whose teams are past their caps, of a tree of findings on clusters (no namespace, the
// migration annotation, a missing team and provider, a List, standard input), and change
// checks from a base directory (reusing head's decoding and not) and from a git revision
// give byte-identical reports.
func TestReportsSameInBothModes(t *testing.T) {
	root := t.TempDir()
	over := filepath.Join(root, "over")
	if _, err := manifesttest.Generate(over, 3, 90); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		team := fmt.Sprintf("team-%02d", i)
		edit(t, filepath.Join(over, team, "team.yaml"), "maxClusters: 60", "maxClusters: 20")
		edit(t, filepath.Join(over, team, "team.yaml"), "maxClustersPerMember: 30", "maxClustersPerMember: 1")
	}
	findings := filepath.Join(root, "findings")
	copyDir(t, payments, findings)
	put(t, filepath.Join(findings, "clusters", "more.yaml"), strings.Join([]string{
		strings.Replace(sandbox3, "  namespace: payments\n", "", 1),
		strings.NewReplacer("sandbox-3", "moving", "  annotations:\n", "  annotations:\n    butler.butlerlabs.dev/migration-operation: \"true\"\n").Replace(sandbox3),
		strings.NewReplacer("sandbox-3", "orphan", "name: payments}", "name: nobody}", "harvester-prod", "nowhere").Replace(sandbox3),
	}, "---\n"))
	list := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(strings.Replace(sandbox3, "sandbox-3", "listed", 1), "\n"), "\n", "\n  ") + "\n"
	put(t, filepath.Join(findings, "clusters", "list.yaml"), list)
	base, head := filepath.Join(root, "base"), filepath.Join(root, "head")
	copyDir(t, over, base)
	copyDir(t, base, head)
	edit(t, filepath.Join(head, "team-00", "clusters", "team-00-c00003.yaml"), "replicas: 4", "replicas: 5")
	put(t, filepath.Join(head, "team-01", "clusters", "added.yaml"), manifesttest.Cluster("team-01", "added", 7))
	if err := os.Remove(filepath.Join(head, "team-02", "clusters", "team-02-c00005.yaml")); err != nil {
		t.Fatal(err)
	}
	author := policy.Identity{Username: manifesttest.Members("team-01", 1)}
	stdin := strings.Replace(sandbox3, "sandbox-3", "piped", 1)
	cases := []struct {
		name string
		f    func() *flags
	}{
		{"example", func() *flags { return &flags{Manifests: []string{payments}} }},
		{"flux", func() *flags { return &flags{Manifests: []string{"../../examples/flux"}} }},
		{"over caps", func() *flags { return &flags{Manifests: []string{over}} }},
		{"findings", func() *flags { return &flags{Manifests: []string{findings, manifest.Stdin}} }},
		{"change", func() *flags { return &flags{Manifests: []string{head}, BaseManifests: []string{base}, Author: author} }},
		{"change, no reuse", func() *flags {
			return &flags{Manifests: []string{head}, BaseManifests: []string{base}, Author: author, noReuse: true}
		}},
	}
	clusterFindings := 0
	for _, c := range cases {
		var got [2]string
		for k, lean := range []bool{false, true} {
			manifesttest.InMode(t, &manifest.WholeBytes, lean)
			r, err := judge(context.Background(), strings.NewReader(stdin), c.f())
			if err != nil {
				t.Fatalf("%s, lean %v: %v", c.name, lean, err)
			}
			got[k] = reportText(t, r)
		}
		if got[0] != got[1] {
			t.Errorf("%s: the reports differ:\nwhole %s\nlean  %s", c.name, got[0], got[1])
		}
		clusterFindings += strings.Count(got[0], `"kind":"TenantCluster"`)
	}
	if _, err := exec.LookPath("git"); err == nil {
		got := [2]string{}
		repo := twoCommits(t, over, head)
		for k, lean := range []bool{false, true} {
			manifesttest.InMode(t, &manifest.WholeBytes, lean)
			r, err := judge(context.Background(), nil, &flags{Manifests: []string{"tree"}, Base: "HEAD~1", Author: author})
			if err != nil {
				t.Fatalf("git, lean %v: %v (%s)", lean, err, repo)
			}
			got[k] = reportText(t, r)
		}
		if got[0] != got[1] {
			t.Errorf("change from git: the reports differ:\nwhole %s\nlean  %s", got[0], got[1])
		}
	}
	if clusterFindings < 40 {
		t.Errorf("%d findings on clusters over the trees: too few to compare the two ways", clusterFindings)
	}
}

// reportText is a report as JSON, with the objects it counts (which JSON leaves out).
func reportText(t *testing.T, r *check.Report) string {
	t.Helper()
	b, err := json.Marshal(struct {
		*check.Report
		Listed []check.Object
	}{r, r.Objects})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// twoCommits makes a repository whose tree/ is base in its first commit and head in its
// second, and makes it the working directory.
func twoCommits(t *testing.T, base, head string) string {
	t.Helper()
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	copyDir(t, base, filepath.Join(repo, "tree"))
	git("add", "-A")
	git("commit", "-qm", "base")
	if err := os.RemoveAll(filepath.Join(repo, "tree")); err != nil {
		t.Fatal(err)
	}
	copyDir(t, head, filepath.Join(repo, "tree"))
	git("add", "-A")
	git("commit", "-qm", "head")
	t.Chdir(repo)
	return repo
}

// The check's rules cannot pass a cluster by ranging over a set's objects: a set's
// Objects hold no TenantCluster in either way of loading (pkg/manifest's
// TestObjectsHoldNoCluster), and a gate over a tree of clusters alone judges each one.
func TestClustersJudgedInBothModes(t *testing.T) {
	dir := t.TempDir()
	put(t, filepath.Join(dir, "c.yaml"), sandbox3) // its team and provider are not in the tree
	for _, lean := range []bool{false, true} {
		manifesttest.InMode(t, &manifest.WholeBytes, lean)
		set, err := manifest.Load([]string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Objects) != 0 || set.Clusters.Len() != 1 {
			t.Fatalf("lean %v: %d objects, %d clusters", lean, len(set.Objects), set.Clusters.Len())
		}
		r, err := Run(context.Background(), Request{Head: Source{Paths: []string{dir}}})
		if err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, f := range r.Findings {
			if f.Kind == "TenantCluster" {
				rules = append(rules, f.Rule+" "+f.Field)
			}
		}
		want := []string{check.RuleNotJudged + " spec.teamRef.name", check.RuleNotJudged + " spec.providerConfigRef.name"}
		if len(r.Objects) != 1 || !reflect.DeepEqual(rules, want) {
			t.Errorf("lean %v: findings %q over %d objects, want %q", lean, rules, len(r.Objects), want)
		}
	}
}

// A base extracted from git is removed while the change is judged: the clusters its load
// kept as records are held whole first, so that the check reads none from the removed
// tree, whatever the order the two happen in.
func TestBaseHeldBeforeRemoval(t *testing.T) {
	manifesttest.InMode(t, &manifest.WholeBytes, true)
	dir := filepath.Join(t.TempDir(), "base")
	copyDir(t, payments, dir)
	tree, err := gitops.Load([]string{dir}, nil, gitops.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := holdBelow(tree, filepath.Dir(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	tcs, err := tree.Targets[0].Set.TenantClusters()
	if err != nil || len(tcs) != tree.Raw.Clusters.Len() || len(tcs) == 0 {
		t.Errorf("%d clusters of %d read after the removal: %v", len(tcs), tree.Raw.Clusters.Len(), err)
	}
}
