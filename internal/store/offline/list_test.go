package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

// A team whose namespace is not its name, and clusters of it with and without a namespace.
const teamClusters = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: payments
status:
  namespace: team-payments
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: web
  labels: {tier: front}
spec:
  teamRef: {name: payments}
  kubernetesVersion: v1.31.0
  workers: {replicas: 1}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: api
  namespace: team-payments
  labels: {tier: back}
spec:
  teamRef: {name: payments}
  kubernetesVersion: v1.31.0
  workers: {replicas: 2}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: api
  namespace: other
spec:
  kubernetesVersion: v1.31.0
  workers: {replicas: 3}
`

// The clusters the store hands out are sorted by namespace and name, carry the namespace
// they are taken to live in, and are the caller's: changing them changes nothing the next
// caller sees.
func TestClustersAreTheCallers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tree.yaml"), []byte(teamClusters), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := offline.Load([]string{dir}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	list := func(ns string) []string {
		t.Helper()
		cs, err := s.ListClusters(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Namespace+"/"+c.Name+"/"+c.Labels["tier"])
		}
		return out
	}
	want := []string{"other/api/", "team-payments/api/back", "team-payments/web/front"}
	if got := list(""); !equal(got, want) {
		t.Fatalf("all: %q, want %q", got, want)
	}
	if got := list("team-payments"); !equal(got, want[1:]) {
		t.Fatalf("team-payments: %q, want %q", got, want[1:])
	}

	all, _ := s.ListClusters(ctx, "")
	for i := range all {
		all[i].Name = "changed"
		if all[i].Labels != nil {
			all[i].Labels["tier"] = "changed"
		}
		if all[i].Spec.TeamRef != nil {
			all[i].Spec.TeamRef.Name = "changed"
		}
	}
	web, err := s.GetCluster(ctx, "team-payments", "web")
	if err != nil || web.Namespace != "team-payments" || web.Labels["tier"] != "front" || web.Spec.TeamRef.Name != "payments" {
		t.Fatalf("web after the list was changed: %+v, %v", web, err)
	}
	web.Labels["tier"] = "changed"
	web.Spec.Workers.Replicas = 9
	if got := list(""); !equal(got, want) {
		t.Fatalf("after changes to what was handed out: %q, want %q", got, want)
	}
	if again, _ := s.GetCluster(ctx, "team-payments", "web"); again.Spec.Workers.Replicas != 1 {
		t.Fatalf("replicas %d, want 1", again.Spec.Workers.Replicas)
	}
	// The first of a name in that order, when no namespace is given.
	if api, err := s.GetCluster(ctx, "", "api"); err != nil || api.Namespace != "other" {
		t.Fatalf("api: %+v, %v", api, err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
