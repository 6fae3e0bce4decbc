package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// A store loaded lean (a command that only reads) lists and gets the clusters the whole
// store does, namespaces filled in alike, and refuses to write.
func TestLeanStoreReadsAsWhole(t *testing.T) {
	dir := t.TempDir()
	if _, err := manifesttest.Generate(dir, 3, 150); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "loose.yaml"), []byte(teamClusters), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	whole, err := offline.LoadWith([]string{dir}, nil, "", nil, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lean, err := offline.LoadWith([]string{dir}, nil, "", nil, manifest.Options{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"", "team-01", "team-payments"} {
		w, err1 := whole.ListClusters(ctx, ns)
		l, err2 := lean.ListClusters(ctx, ns)
		if err1 != nil || err2 != nil || len(w) == 0 || !reflect.DeepEqual(w, l) {
			t.Fatalf("ListClusters(%q): lean (%d, %v) differs from whole (%d, %v)", ns, len(l), err2, len(w), err1)
		}
	}
	w, err1 := whole.GetCluster(ctx, "team-payments", "web")
	l, err2 := lean.GetCluster(ctx, "team-payments", "web")
	if err1 != nil || err2 != nil || !reflect.DeepEqual(w, l) || l.Namespace != "team-payments" {
		t.Fatalf("GetCluster: lean %+v (%v), whole %+v (%v)", l, err2, w, err1)
	}
	c, err := lean.GetCluster(ctx, "team-01", "team-01-c00001")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lean.DeleteCluster(ctx, c); err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Errorf("a lean store deleted a cluster: %v", err)
	}
}

// A file changed under a lean store is an error naming it, not another cluster.
func TestLeanStoreFileChanged(t *testing.T) {
	dir := t.TempDir()
	tree, err := manifesttest.Generate(dir, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	lean, err := offline.LoadWith([]string{dir}, nil, "", nil, manifest.Options{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tree.Clusters[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tree.Clusters[1], []byte(strings.Replace(string(data), "replicas: 3", "replicas: 4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lean.ListClusters(context.Background(), ""); err == nil || !strings.Contains(err.Error(), filepath.Base(tree.Clusters[1])) {
		t.Errorf("got %v, want an error naming the changed file", err)
	}
}
