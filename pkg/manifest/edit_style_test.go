package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// An edit keeps what it was not asked to change: quoting ("2" stays "2"), explicit tags
// (!!str 2, a tag of the file's own), also inside a block that has to be re-rendered
// (a flow mapping that gains a key), and a tag on a value that does change.
func TestWriteKeepsTagsAndQuoting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	orig := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: payments
  labels: {tier: "2", zone: '3'}
spec:
  displayName: !custom Payments
  description: !vault "2"
  resourceLimits:
    maxClusters: 20
    maxCPUCores: "2"
  environments:
    - name: dev
      description: !custom "2"
      clusterDefaults: {kubernetesVersion: !!str 2, workerCount: 2}
    - name: prod
      description: !custom old
`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("payments").DeepCopy()
	team.Spec.ResourceLimits.MaxClusters = ptr(int32(21))
	team.Spec.Environments[0].ClusterDefaults.WorkerCPU = ptr(int32(4))
	team.Spec.Environments[1].Description = "new"
	if err := Write([]Change{{Source: set.SourceOf(set.Team("payments")), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"maxClusters: 20", "maxClusters: 21",
		"workerCount: 2}", "workerCount: 2, workerCPU: 4}",
		"description: !custom old", "description: !custom new",
	).Replace(orig)
	checkFile(t, path, want)

	// Unchanged, the file is byte for byte what it was.
	set = load(t, path)
	team = set.Team("payments")
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team.DeepCopy()}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, want)
}

// A few lines of aliases in a field the toolkit does not type (kept loosely, so reading
// does not look into it) stand for a billion nodes: an edit of the document must fail
// with a message, fast, and write nothing, instead of running out of memory.
func TestWriteAliasBombIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tcp.yaml")
	var b strings.Builder
	b.WriteString("apiVersion: steward.butlerlabs.dev/v1alpha1\nkind: TenantControlPlane\nmetadata:\n  name: x\n  namespace: ns\nspec:\n  bomb:\n")
	b.WriteString("    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("    a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	orig := b.String()
	// The loader refuses the bomb itself (its node bound), so the object is loaded from a
	// plain copy and the bomb put in its place before the write, as a file changed between
	// a run's read and its write would be: the writer reads it again and must stop too.
	plain := "apiVersion: steward.butlerlabs.dev/v1alpha1\nkind: TenantControlPlane\nmetadata:\n  name: x\n  namespace: ns\nspec:\n  bomb: {}\n"
	if err := os.WriteFile(path, []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	tcps := set.TenantControlPlanes()
	if len(tcps) != 1 {
		t.Fatalf("loaded %d control planes", len(tcps))
	}
	tcp := tcps[0].DeepCopy()
	tcp.Spec.WritePermissions = stewardv1alpha1.Permissions{BlockCreate: true}
	start := time.Now()
	err := Write([]Change{{Source: set.SourceOf(tcps[0]), Obj: tcp}})
	if err == nil || !strings.Contains(err.Error(), "aliases expand to more than") || !strings.Contains(err.Error(), "tcp.yaml") {
		t.Errorf("got %v, want a refusal naming the file and the aliases", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	checkFile(t, path, orig)
}
