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

func loadIn(t *testing.T, lean bool, dir string) *offline.Store {
	t.Helper()
	manifesttest.InMode(t, &manifest.WholeBytes, lean)
	s, err := offline.LoadWith([]string{dir}, nil, "", nil, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A store whose load kept records of its clusters lists and gets the clusters a store of
// whole clusters does, namespaces filled in alike.
func TestLeanStoreReadsAsWhole(t *testing.T) {
	dir := t.TempDir()
	if _, err := manifesttest.Generate(dir, 3, 150); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "loose.yaml"), []byte(teamClusters), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	whole, lean := loadIn(t, false, dir), loadIn(t, true, dir)
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
}

// A store writes whatever its load kept of the clusters: edits of two clusters of one file
// (the second's document moved by the first's edit), a migration and a delete leave the
// same files in either case, and what it reads after them is what it wrote.
func TestStoreWritesInBothModes(t *testing.T) {
	ctx := context.Background()
	var trees [2]string
	for k, lean := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := manifesttest.Generate(dir, 1, 3); err != nil {
			t.Fatal(err)
		}
		two := manifesttest.Cluster("team-00", "two-a", 301) + "---\n" + manifesttest.Cluster("team-00", "two-b", 302)
		if err := os.WriteFile(filepath.Join(dir, "two.yaml"), []byte(two), 0o644); err != nil {
			t.Fatal(err)
		}
		s := loadIn(t, lean, dir)
		for _, name := range []string{"two-a", "two-b"} {
			c, err := s.GetCluster(ctx, "team-00", name)
			if err != nil {
				t.Fatal(err)
			}
			up, _, err := s.ScaleCluster(ctx, c, 17) // a longer line: two-b's document moves
			if err != nil || up.Spec.Workers.Replicas != 17 {
				t.Fatalf("lean %v: scale %s: %v", lean, name, err)
			}
		}
		c, err := s.GetCluster(ctx, "team-00", "two-b")
		if err != nil || c.Spec.Workers.Replicas != 17 {
			t.Fatalf("lean %v: two-b read after its edit: %+v, %v", lean, c, err)
		}
		if _, err := s.MigrateCluster(ctx, c, "staging"); err != nil {
			t.Fatalf("lean %v: migrate: %v", lean, err)
		}
		c, err = s.GetCluster(ctx, "team-00", "team-00-c00001")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteCluster(ctx, c); err != nil {
			t.Fatalf("lean %v: delete: %v", lean, err)
		}
		if all, err := s.ListClusters(ctx, ""); err != nil || len(all) != 4 {
			t.Fatalf("lean %v: %d clusters after the delete (%v), want 4", lean, len(all), err)
		}
		trees[k] = dir
	}
	// Every file of the two trees alike, the edits among them.
	files := 0
	err := filepath.WalkDir(trees[0], func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(trees[0], p)
		w, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		l, err := os.ReadFile(filepath.Join(trees[1], rel))
		if err != nil {
			return err
		}
		if files++; string(w) != string(l) {
			t.Errorf("%s: lean store wrote\n%s\nwhole store\n%s", rel, l, w)
		}
		return nil
	})
	if err != nil || files < 5 {
		t.Fatalf("compared %d files: %v", files, err)
	}
	if two, err := os.ReadFile(filepath.Join(trees[1], "two.yaml")); err != nil || strings.Count(string(two), "replicas: 17") != 2 || !strings.Contains(string(two), "staging") {
		t.Errorf("two.yaml does not hold the edits (%v):\n%s", err, two)
	}
	if _, err := os.Stat(filepath.Join(trees[1], "team-00/clusters/team-00-c00001.yaml")); !os.IsNotExist(err) {
		t.Errorf("the deleted cluster's file is still there: %v", err)
	}
}

// A file changed under a store that kept records is an error naming it, not another
// cluster.
func TestLeanStoreFileChanged(t *testing.T) {
	dir := t.TempDir()
	tree, err := manifesttest.Generate(dir, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	lean := loadIn(t, true, dir)
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
