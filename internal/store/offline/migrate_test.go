package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

const legacy = `# kept
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: old
  namespace: payments
  annotations:
    butler.butlerlabs.dev/migration-operation: "true"  # left by butler-cli
spec:
  kubernetesVersion: v1.31.0
  workers:
    replicas: 1
    machineTemplate: {cpu: 1, memory: 2Gi, diskSize: 20Gi}
`

func TestMigrateCluster(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(file, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := offline.Load([]string{dir}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.GetCluster(ctx, "payments", "old")
	if err != nil {
		t.Fatal(err)
	}
	// A move writes the label with the annotation (the change the server accepts).
	res, err := s.MigrateCluster(ctx, c, "prod")
	if err != nil || !res.Labeled || res.Cleaned || res.Location != file {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(file)
	moved := strings.Replace(legacy, "# left by butler-cli\n", "# left by butler-cli\n  labels:\n    butler.butlerlabs.dev/environment: prod\n", 1)
	if string(got) != moved {
		t.Errorf("file after the move:\n%s\nwant:\n%s", got, moved)
	}
	// The next run, in the environment already, removes the annotation.
	c, _ = s.GetCluster(ctx, "payments", "old")
	if res, err = s.MigrateCluster(ctx, c, "prod"); err != nil || res.Labeled || !res.Cleaned {
		t.Fatalf("cleanup: %+v, %v", res, err)
	}
	got, _ = os.ReadFile(file)
	want := strings.Replace(legacy, "  annotations:\n    butler.butlerlabs.dev/migration-operation: \"true\"  # left by butler-cli\n",
		"  labels:\n    butler.butlerlabs.dev/environment: prod\n", 1)
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	// The store reads what it wrote.
	if c2, _ := s.GetCluster(ctx, "payments", "old"); c2.Labels[v1alpha1.LabelEnvironment] != "prod" {
		t.Errorf("labels after: %v", c2.Labels)
	}
	// The stale read is a Conflict, and nothing is written.
	if _, err := s.MigrateCluster(ctx, c, "dev"); !apierrors.IsConflict(err) {
		t.Errorf("stale migrate: %v, want Conflict", err)
	}
	if again, _ := os.ReadFile(file); string(again) != want {
		t.Error("a conflicting migrate wrote")
	}
	// Nothing to do: no write.
	c2, _ := s.GetCluster(ctx, "payments", "old")
	if res, err := s.MigrateCluster(ctx, c2, "prod"); err != nil || res.Labeled || !res.Cleaned {
		t.Errorf("no-op migrate: %+v, %v", res, err)
	}
	c2.Name = "missing"
	if _, err := s.MigrateCluster(ctx, c2, "prod"); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}
}

func TestMigrateClusterFromStdin(t *testing.T) {
	s, err := offline.Load([]string{"-"}, strings.NewReader(legacy), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.GetCluster(context.Background(), "payments", "old")
	if _, err := s.MigrateCluster(context.Background(), c, "prod"); err == nil || !strings.Contains(err.Error(), "stdin") {
		t.Errorf("stdin: %v", err)
	}
}
