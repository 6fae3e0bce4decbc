package gate

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// A change check reuses head's decoding for the base files head has unchanged (known by
// the digests the head load recorded) and shares their cluster copies between base and
// head; its report must be the one of a change check that decodes and copies everything.
// The pull request edits, adds and deletes clusters, and moves the Team's namespace, so
// that a cluster written without one (the same bytes on both sides) lands in a different
// namespace in base and head.
func TestChangeCheckSameWithReuse(t *testing.T) {
	root := t.TempDir()
	base, head := filepath.Join(root, "base"), filepath.Join(root, "head")
	copyDir(t, filepath.Join("..", "..", "examples", "payments"), base)
	loose := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: loose
  labels:
    butler.butlerlabs.dev/environment: dev
  annotations:
    butler.butlerlabs.dev/creator-email: carol@example.com
spec:
  kubernetesVersion: v1.31.0
  teamRef:
    name: payments
  workers:
    replicas: 1
    machineTemplate: {cpu: 2, memory: 2Gi, diskSize: 100Gi}
`
	put(t, filepath.Join(base, "clusters", "loose.yaml"), loose)
	copyDir(t, base, head)
	edit(t, filepath.Join(head, "clusters", "bob-checkout.yaml"), "replicas: 3", "replicas: 5")
	edit(t, filepath.Join(head, "clusters", "carol-sandbox-1.yaml"), "name: carol-sandbox-1", "name: carol-sandbox-9")
	if err := os.Rename(filepath.Join(head, "clusters", "carol-sandbox-1.yaml"), filepath.Join(head, "clusters", "carol-sandbox-9.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(head, "clusters", "ledger-legacy.yaml")); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(head, "team.yaml"), "status:\n  namespace: payments", "status:\n  namespace: team-payments")

	for _, author := range []string{"alice@example.com", "carol@example.com"} {
		run := func(noReuse bool) any {
			o := &flags{Manifests: []string{head}, BaseManifests: []string{base},
				Author: policy.Identity{Username: author}, noReuse: noReuse}
			r, err := judge(context.Background(), nil, o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Unreadable || r.Mode != "change" {
				t.Fatalf("report: %+v", r)
			}
			return r
		}
		reused, decoded := run(false), run(true)
		if !reflect.DeepEqual(reused, decoded) {
			t.Errorf("author %s: the reports differ:\nreusing:  %+v\ndecoding: %+v", author, reused, decoded)
		}
	}
}

func put(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, name, old, new string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s: no %q", name, old)
	}
	put(t, name, strings.Replace(string(data), old, new, 1))
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(from, p)
		put(t, filepath.Join(to, r), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
