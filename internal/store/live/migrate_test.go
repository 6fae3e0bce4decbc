package live_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestMigrationPatch(t *testing.T) {
	b, err := live.MigrationPatch("42", "prod")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"annotations":{"butler.butlerlabs.dev/migration-operation":"true"},"labels":{"butler.butlerlabs.dev/environment":"prod"},"resourceVersion":"42"}}`
	if string(b) != want {
		t.Errorf("patch %s\nwant  %s", b, want)
	}
	b, _ = live.MigrationPatch("", "dev")
	if want := `{"metadata":{"annotations":{"butler.butlerlabs.dev/migration-operation":"true"},"labels":{"butler.butlerlabs.dev/environment":"dev"}}}`; string(b) != want {
		t.Errorf("patch %s", b)
	}
}

var tcGVR = v1alpha1.GroupVersion.WithResource("tenantclusters")

// raw reads a TenantCluster as the server stores it, as JSON maps.
func raw(t *testing.T, env *testenv.Env, name string) *unstructured.Unstructured {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	u, err := dc.Resource(tcGVR).Namespace("payments").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The two patches: the first sets the label with the annotation, the second removes the
// annotation; nothing else of the object changes.
func TestMigrateClusterTwoPatches(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Alice)
	before := raw(t, env, "ledger-legacy")

	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	w, err := dc.Resource(tcGVR).Namespace("payments").Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", "ledger-legacy").String(),
		ResourceVersion: before.GetResourceVersion(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	c, err := s.GetCluster(ctx, "payments", "ledger-legacy")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.MigrateCluster(ctx, c, "prod")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Labeled || !res.Cleaned || res.ResourceVersion == "" || res.Location == "" {
		t.Errorf("result %+v", res)
	}

	// What a watcher saw: exactly two updates, the bypass only in between.
	var seen []*unstructured.Unstructured
	timeout := time.After(10 * time.Second)
	for len(seen) < 2 {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Modified {
				t.Fatalf("event %s", ev.Type)
			}
			seen = append(seen, ev.Object.(*unstructured.Unstructured))
		case <-timeout:
			t.Fatalf("saw %d updates", len(seen))
		}
	}
	if a := seen[0].GetAnnotations()[v1alpha1.AnnotationMigration]; a != "true" || seen[0].GetLabels()[v1alpha1.LabelEnvironment] != "prod" {
		t.Errorf("first update: annotation %q, labels %v", a, seen[0].GetLabels())
	}
	if _, ok := seen[1].GetAnnotations()[v1alpha1.AnnotationMigration]; ok || seen[1].GetLabels()[v1alpha1.LabelEnvironment] != "prod" {
		t.Errorf("second update: annotations %v, labels %v", seen[1].GetAnnotations(), seen[1].GetLabels())
	}
	if seen[1].GetResourceVersion() != res.ResourceVersion {
		t.Errorf("resourceVersion %s, result says %s", seen[1].GetResourceVersion(), res.ResourceVersion)
	}

	// Every other label, annotation and spec field is byte-identical.
	after := raw(t, env, "ledger-legacy")
	wantLabels := before.GetLabels()
	wantLabels[v1alpha1.LabelEnvironment] = "prod"
	if !reflect.DeepEqual(after.GetLabels(), wantLabels) {
		t.Errorf("labels %v, want %v", after.GetLabels(), wantLabels)
	}
	if !reflect.DeepEqual(after.GetAnnotations(), before.GetAnnotations()) {
		t.Errorf("annotations %v, want %v", after.GetAnnotations(), before.GetAnnotations())
	}
	sb, _ := json.Marshal(before.Object["spec"])
	sa, _ := json.Marshal(after.Object["spec"])
	if string(sa) != string(sb) {
		t.Errorf("spec changed:\n%s\n%s", sb, sa)
	}

	// Nothing to do now: no request at all.
	c, _ = s.GetCluster(ctx, "payments", "ledger-legacy")
	res, err = s.MigrateCluster(ctx, c, "prod")
	if err != nil || res.Labeled || !res.Cleaned {
		t.Fatalf("second migrate: %+v, %v", res, err)
	}
	if rv := raw(t, env, "ledger-legacy").GetResourceVersion(); rv != after.GetResourceVersion() {
		t.Errorf("a no-op migration wrote: %s -> %s", after.GetResourceVersion(), rv)
	}
}

// A cluster changed since it was read answers Conflict and is left as the other writer
// left it.
func TestMigrateClusterConflict(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Alice)
	stale, err := s.GetCluster(ctx, "payments", "ledger-legacy")
	if err != nil {
		t.Fatal(err)
	}
	// Someone else edits it meanwhile.
	tc := &v1alpha1.TenantCluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "ledger-legacy"}, tc); err != nil {
		t.Fatal(err)
	}
	tc.Labels["tier"] = "ledger"
	if err := env.Client.Update(ctx, tc); err != nil {
		t.Fatal(err)
	}
	res, err := s.MigrateCluster(ctx, stale, "prod")
	if !apierrors.IsConflict(err) || res.Labeled {
		t.Fatalf("migrate of a stale read: %+v, %v; want Conflict", res, err)
	}
	after := raw(t, env, "ledger-legacy")
	if after.GetResourceVersion() != tc.ResourceVersion || after.GetLabels()[v1alpha1.LabelEnvironment] != "" {
		t.Errorf("the stale migration wrote: rv %s (want %s), labels %v", after.GetResourceVersion(), tc.ResourceVersion, after.GetLabels())
	}
	// Read again, it goes.
	fresh, _ := s.GetCluster(ctx, "payments", "ledger-legacy")
	if _, err := s.MigrateCluster(ctx, fresh, "prod"); err != nil {
		t.Fatal(err)
	}
	if l := raw(t, env, "ledger-legacy").GetLabels(); l["tier"] != "ledger" || l[v1alpha1.LabelEnvironment] != "prod" {
		t.Errorf("labels %v", l)
	}

	// Deleted meanwhile: NotFound, nothing created.
	gone, _ := s.GetCluster(ctx, "payments", "carol-sandbox-1")
	if err := env.Client.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MigrateCluster(ctx, gone, "prod"); !apierrors.IsNotFound(err) {
		t.Errorf("migrate of a deleted cluster: %v, want NotFound", err)
	}
}

// A cluster already in the environment that still carries the annotation (butler-cli never
// removed it) gets only the removal.
func TestMigrateClusterCleanup(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	tc := &v1alpha1.TenantCluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "bob-checkout"}, tc); err != nil {
		t.Fatal(err)
	}
	tc.Annotations[v1alpha1.AnnotationMigration] = "true"
	if err := env.Client.Update(ctx, tc); err != nil {
		t.Fatal(err)
	}
	s := storeAs(t, env, testenv.Bob)
	c, _ := s.GetCluster(ctx, "payments", "bob-checkout")
	res, err := s.MigrateCluster(ctx, c, "prod")
	if err != nil || res.Labeled || !res.Cleaned {
		t.Fatalf("cleanup: %+v, %v", res, err)
	}
	after := raw(t, env, "bob-checkout")
	if _, ok := after.GetAnnotations()[v1alpha1.AnnotationMigration]; ok {
		t.Error("annotation left")
	}
	if after.GetAnnotations()[v1alpha1.AnnotationOwner] != "bob@example.com" || after.GetLabels()[v1alpha1.LabelEnvironment] != "prod" {
		t.Errorf("other metadata changed: %v %v", after.GetLabels(), after.GetAnnotations())
	}

	// Dave may only read: the server's Forbidden, untouched.
	s = storeAs(t, env, testenv.Dave)
	c, _ = s.GetCluster(ctx, "payments", "ledger-legacy")
	_, err = s.MigrateCluster(ctx, c, "prod")
	if !apierrors.IsForbidden(err) {
		t.Errorf("viewer migrate: %v, want Forbidden", err)
	}
	// The server's own words, not a generic status.
	if want := `tenantclusters.butler.butlerlabs.dev "ledger-legacy" is forbidden: User "dave@example.com" cannot patch resource "tenantclusters" in API group "butler.butlerlabs.dev" in the namespace "payments"`; err == nil || err.Error() != want {
		t.Errorf("message %q\nwant    %q", err, want)
	}
}
