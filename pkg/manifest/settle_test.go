package manifest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// settleFields are the unknown fields the generated trees use, where each is written.
var settleFields = []struct{ field, under, line string }{
	{"spec.maintenanceWindow", "spec", "  maintenanceWindow: sun"},
	{"spec.rollout", "spec", "  rollout: {maxSurge: 1}"},
	{"spec.workers.spot", "workers", "    spot: true"},
	{"spec.workers.taints", "workers", "    taints: [a]"},
}

// settleTree writes a tree of files of TenantClusters, some with unknown fields and some
// with other faults, and returns its directory, the tolerance to settle on, and whether
// it wrote an unknown field.
func settleTree(t *testing.T, rng *rand.Rand) (string, func(apiVersion, kind, field string) bool, bool) {
	dir := t.TempDir()
	unknown := false
	for f := range 1 + rng.IntN(5) {
		var docs []string
		for d := range 1 + rng.IntN(3) {
			replicas := "2"
			switch rng.IntN(8) {
			case 0:
				replicas = `"two"` // a type error, beside or instead of an unknown field
			case 1:
				replicas = "-1" // a validation error
			}
			var spec, workers []string
			for _, u := range settleFields {
				if rng.IntN(4) == 0 {
					unknown = true
					if u.under == "spec" {
						spec = append(spec, u.line)
					} else {
						workers = append(workers, u.line)
					}
				}
			}
			docs = append(docs, fmt.Sprintf(`apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata: {name: c%d-%d, namespace: payments}
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: payments}
  providerConfigRef: {name: harvester-prod}
%s
  workers:
    replicas: %s
%s
    machineTemplate: {cpu: 2, memory: 4Gi, diskSize: 100Gi}
`, f, d, strings.Join(spec, "\n"), replicas, strings.Join(workers, "\n")))
		}
		name := filepath.Join(dir, fmt.Sprintf("f%d.yaml", f))
		if err := os.WriteFile(name, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	declared := map[string]bool{}
	for _, u := range settleFields {
		declared[u.field] = rng.IntN(2) == 0
	}
	if rng.IntN(6) == 0 {
		return dir, nil, unknown // no CRD: nothing is tolerated
	}
	return dir, func(apiVersion, kind, field string) bool {
		return kind == "TenantCluster" && declared[field]
	}, unknown
}

// settledView is what a test compares of a Load: each object's identity, place and the
// fields left unjudged, and the error's text.
func settledView(set *Set, err error) string {
	var b strings.Builder
	if err != nil {
		b.WriteString("error: " + err.Error() + "\n")
	}
	if set != nil {
		werr := set.Walk(func(o *Object) error { // the clusters among the objects, whole
			fmt.Fprintf(&b, "%s %s/%s %s %v %T\n", o.Kind, o.Namespace, o.Name, o.Source, o.NotJudged, o.Obj)
			return nil
		})
		if werr != nil {
			b.WriteString("walk: " + werr.Error() + "\n")
		}
	}
	return b.String()
}

// TestSettleAsTolerate: a Load that settles what to tolerate at its end (Options.Settle)
// gives, on generated trees, the Set and the errors of a Load told the answer at its
// start (Options.Tolerate), whether it keeps clusters whole or as records, and reads each
// file once; Settle is asked once, and only
// when a field was tolerated provisionally.
func TestSettleAsTolerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 42))
	refused := 0
	defer func(b int64) { WholeBytes = b }(WholeBytes)
	for i := range 200 {
		WholeBytes = []int64{0, 1 << 20}[i%2] // clusters kept as records, or whole
		dir, tol, unknown := settleTree(t, rng)
		want := settledView(LoadWith([]string{dir}, nil, Options{Tolerate: tol}))
		var mu sync.Mutex
		reads := map[string]int{}
		asked := 0
		got := settledView(LoadWith([]string{dir}, nil, Options{
			Settle: func() func(apiVersion, kind, field string) bool { asked++; return tol },
			ReadFile: func(p string, limit int64) ([]byte, error) {
				mu.Lock()
				reads[p]++
				mu.Unlock()
				return fileio.ReadFile(p, limit)
			},
		}))
		if got != want {
			t.Fatalf("tree %d: settled at the end:\n%s\ntold at the start:\n%s", i, got, want)
		}
		for p, n := range reads {
			if n != 1 {
				t.Errorf("tree %d: %s read %d times, want once", i, p, n)
			}
		}
		if wantAsked := map[bool]int{true: 1}[unknown]; asked != wantAsked {
			t.Errorf("tree %d: Settle asked %d times, want %d", i, asked, wantAsked)
		}
		if strings.Contains(want, "unknown field") {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no generated tree had a field refused: the generator does not exercise Settle's refusal")
	}
}

// TestSettleNotAskedWithoutQuestions: a tree with no unknown field never asks Settle, and
// tolerates nothing.
func TestSettleNotAskedWithoutQuestions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	asked := false
	set, err := LoadWith([]string{dir}, nil, Options{Settle: func() func(apiVersion, kind, field string) bool {
		asked = true
		return nil
	}})
	if err != nil || len(set.Objects) != 1 {
		t.Fatalf("LoadWith: %v, %v", set, err)
	}
	if asked {
		t.Error("Settle asked about a tree with no unknown field")
	}
	if !slices.Equal([]string{"ConfigMap"}, []string{set.Objects[0].Kind}) || !reflect.DeepEqual(set.Objects[0].NotJudged, []FieldOrigin(nil)) {
		t.Errorf("objects: %+v", set.Objects)
	}
}
