package live_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Many clusters at once, each answered in its place: created under the field manager, a
// dry run stores nothing, and a field another manager owns is that cluster's Conflict
// while the others go through; forced, it is taken over.
func TestApplyClusters(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Alice)
	var clusters []*v1alpha1.TenantCluster
	for i := range 12 {
		c := testenv.Cluster(fmt.Sprintf("bulk-%02d", i), "dev", "alice@example.com", 1, 2, "2Gi")
		c.Namespace = "payments"
		clusters = append(clusters, c)
	}
	var done atomic.Int32
	dry, err := s.ApplyClusters(ctx, clusters, store.ApplyOptions{FieldManager: "test", DryRun: true, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range dry {
		if a.Err != nil || a.Object == nil || a.Object.Name != clusters[i].Name {
			t.Fatalf("dry run %d: %+v", i, a)
		}
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "bulk-00"}, &v1alpha1.TenantCluster{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a dry run stored bulk-00: %v", err)
	}
	got, err := s.ApplyClusters(ctx, clusters, store.ApplyOptions{FieldManager: "test", Concurrency: 4, Done: func() { done.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if int(done.Load()) != len(clusters) {
		t.Errorf("Done called %d times, want %d", done.Load(), len(clusters))
	}
	for i, a := range got {
		if a.Err != nil || a.Object.Name != clusters[i].Name || a.Object.Kind != v1alpha1.KindTenantCluster || a.Object.ManagedFields != nil {
			t.Fatalf("apply %d: %+v", i, a)
		}
	}
	stored := &v1alpha1.TenantCluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "bulk-03"}, stored); err != nil {
		t.Fatal(err)
	}
	if len(stored.ManagedFields) != 1 || stored.ManagedFields[0].Manager != "test" {
		t.Errorf("managed fields %+v, want the one manager test", stored.ManagedFields)
	}

	// Another manager changes bulk-03's replicas: 3 -> the next apply of 1 conflicts.
	other := clusters[3].DeepCopy()
	other.Spec.Workers.Replicas = 3
	if _, err := s.ApplyClusters(ctx, []*v1alpha1.TenantCluster{other}, store.ApplyOptions{FieldManager: "ops", Force: true}); err != nil {
		t.Fatal(err)
	}
	got, err = s.ApplyClusters(ctx, clusters, store.ApplyOptions{FieldManager: "test", Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range got {
		if (i == 3) != apierrors.IsConflict(a.Err) || (i != 3 && a.Err != nil) {
			t.Errorf("apply %d again: %v", i, a.Err)
		}
	}
	got, err = s.ApplyClusters(ctx, clusters[3:4], store.ApplyOptions{FieldManager: "test", Force: true})
	if err != nil || got[0].Err != nil || got[0].Object.Spec.Workers.Replicas != 1 {
		t.Fatalf("forced: %v %+v", err, got)
	}
}
