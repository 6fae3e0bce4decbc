package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
)

const twoClusters = `# two clusters
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: a
spec:
  kubernetesVersion: v1.31.0
  workers:
    replicas: 1 # one
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: b
spec:
  kubernetesVersion: v1.31.0
  workers: {replicas: 1}
`

func TestScaleAndDeleteCluster(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "clusters.yaml")
	if err := os.WriteFile(file, []byte(twoClusters), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := offline.Load([]string{dir}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A document without a namespace lives in its team's (here: no team, "").
	a, err := s.GetCluster(ctx, "", "a")
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := s.ScaleCluster(ctx, a, 4)
	if err != nil || got.Spec.Workers.Replicas != 4 || res.Location != file {
		t.Fatalf("scale: %+v %+v %v", got, res, err)
	}
	b, _ := os.ReadFile(file)
	if want := strings.Replace(twoClusters, "replicas: 1 # one", "replicas: 4 # one", 1); string(b) != want {
		t.Fatalf("file:\n%s", b)
	}
	// a, as read before the scale, is stale now.
	if _, _, err := s.ScaleCluster(ctx, a, 5); !apierrors.IsConflict(err) {
		t.Fatalf("stale scale: %v", err)
	}
	// The set follows the write: a fresh read scales.
	a, _ = s.GetCluster(ctx, "", "a")
	if a.Spec.Workers.Replicas != 4 {
		t.Fatalf("read after scale: %d", a.Spec.Workers.Replicas)
	}

	if _, err := s.DeleteCluster(ctx, a); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(file)
	if strings.Contains(string(b), "name: a") || !strings.Contains(string(b), "name: b") {
		t.Fatalf("after delete:\n%s", b)
	}
	if _, err := s.GetCluster(ctx, "", "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("deleted cluster still read: %v", err)
	}
	if _, err := s.DeleteCluster(ctx, a); !apierrors.IsNotFound(err) {
		t.Fatalf("second delete: %v", err)
	}
	if _, _, err := s.ScaleCluster(ctx, a, 2); !apierrors.IsNotFound(err) {
		t.Fatalf("scale of a deleted cluster: %v", err)
	}
}

func TestScaleFromStdin(t *testing.T) {
	ctx := context.Background()
	s, err := offline.Load([]string{"-"}, strings.NewReader(twoClusters), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.GetCluster(ctx, "", "b")
	if _, _, err := s.ScaleCluster(ctx, b, 2); !storeerr.IsMissing(err, storeerr.NeedWritableSource) {
		t.Fatalf("scale from stdin: %v", err)
	}
	// Nothing to write: the same count is fine even from stdin.
	if _, _, err := s.ScaleCluster(ctx, b, 1); err != nil {
		t.Fatal(err)
	}
}
