package live_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestScalePatch(t *testing.T) {
	b, err := live.ScalePatch("42", 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"metadata":{"resourceVersion":"42"},"spec":{"workers":{"replicas":5}}}`; string(b) != want {
		t.Errorf("patch %s, want %s", b, want)
	}
	b, _ = live.ScalePatch("", 1)
	if want := `{"spec":{"workers":{"replicas":1}}}`; string(b) != want {
		t.Errorf("patch without precondition %s", b)
	}
}

// Only spec.workers.replicas changes, and a cluster changed since it was read is a
// Conflict, not overwritten.
func TestScaleCluster(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Bob)
	before, err := s.GetCluster(ctx, "payments", "bob-checkout")
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := s.ScaleCluster(ctx, before, 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Location != s.Host() || got.Spec.Workers.Replicas != 5 || got.Kind != v1alpha1.KindTenantCluster || got.ManagedFields != nil {
		t.Errorf("answer %+v at %q", got, res.Location)
	}
	after := &v1alpha1.TenantCluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "bob-checkout"}, after); err != nil {
		t.Fatal(err)
	}
	want := before.Spec.DeepCopy()
	want.Workers.Replicas = 5
	if !equality.Semantic.DeepEqual(after.Spec, *want) || !equality.Semantic.DeepEqual(after.Labels, before.Labels) ||
		!equality.Semantic.DeepEqual(after.Annotations, before.Annotations) {
		t.Errorf("stored %+v\nwant spec %+v", after, want)
	}

	// before's resourceVersion is stale now.
	_, _, err = s.ScaleCluster(ctx, before, 6)
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale scale: %v, want Conflict", err)
	}
	// dave may read, not patch: 403, exit 4.
	_, _, err = storeAs(t, env, testenv.Dave).ScaleCluster(ctx, got, 6)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("dave: %v", err)
	}
}

// The uid read goes with the delete: a cluster created again under the name is spared.
func TestDeleteCluster(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Carol)
	old, err := s.GetCluster(ctx, "payments", "carol-sandbox-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, old.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	again := cluster("payments", "carol-sandbox-2")
	if err := env.Client.Create(ctx, again); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteCluster(ctx, old); !apierrors.IsConflict(err) {
		t.Fatalf("delete with the old uid: %v, want Conflict", err)
	}
	cur, err := s.GetCluster(ctx, "payments", "carol-sandbox-2")
	if err != nil {
		t.Fatalf("the new cluster is gone: %v", err)
	}
	if _, err := s.DeleteCluster(ctx, cur); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetCluster(ctx, "payments", "carol-sandbox-2"); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := s.DeleteCluster(ctx, cur); !apierrors.IsNotFound(err) {
		t.Fatalf("second delete: %v, want NotFound", err)
	}
}

func TestDryRunCreateCluster(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	c := cluster("payments", "web")
	addons := []v1alpha1.TenantAddon{{
		ObjectMeta: metav1.ObjectMeta{Name: "web-cert-manager", Namespace: "payments"},
		Spec:       v1alpha1.TenantAddonSpec{ClusterRef: v1alpha1.LocalObjectReference{Name: "web"}, Addon: "cert-manager", Version: "v1.16.0"},
	}}
	got, gotAddons, err := storeAs(t, env, testenv.Bob).DryRunCreateCluster(ctx, c, addons)
	if err != nil {
		t.Fatal(err)
	}
	if got.UID == "" || got.CreationTimestamp.IsZero() || got.Kind != v1alpha1.KindTenantCluster ||
		got.Spec.Workers.Replicas != 3 || len(gotAddons) != 1 || gotAddons[0].Kind != v1alpha1.KindTenantAddon {
		t.Errorf("server's answer: %+v %+v", got, gotAddons)
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "web"}, &v1alpha1.TenantCluster{}); !apierrors.IsNotFound(err) {
		t.Errorf("the dry run stored the cluster: %v", err)
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "web-cert-manager"}, &v1alpha1.TenantAddon{}); !apierrors.IsNotFound(err) {
		t.Errorf("the dry run stored the addon: %v", err)
	}
	// RBAC judges a dry run as a create.
	if _, _, err := storeAs(t, env, testenv.Dave).DryRunCreateCluster(ctx, c, nil); !apierrors.IsForbidden(err) {
		t.Errorf("dave: %v, want Forbidden", err)
	}
}

// A watch sees the cluster's status changes, and only that cluster's.
func TestWatchCluster(t *testing.T) {
	env := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := storeAs(t, env, testenv.Bob)
	c, err := s.GetCluster(ctx, "payments", "bob-checkout")
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.WatchCluster(ctx, "payments", "bob-checkout", c.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, name := range []string{"carol-sandbox-1", "bob-checkout"} {
		o := &v1alpha1.TenantCluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: name}, o); err != nil {
			t.Fatal(err)
		}
		o.Status.Phase = "Provisioning"
		if err := env.Client.Status().Update(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Bookmark {
				continue
			}
			got, ok := ev.Object.(*v1alpha1.TenantCluster)
			if ev.Type != watch.Modified || !ok || got.Name != "bob-checkout" || got.Status.Phase != "Provisioning" {
				t.Fatalf("event %s %#v", ev.Type, ev.Object)
			}
			return
		case <-ctx.Done():
			t.Fatal("no event")
		}
	}
}

func TestSecretValue(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	const ns = "web-0a1b2c3d"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for name, data := range map[string]map[string][]byte{
		"both":  {"admin.conf": []byte("A"), "value": []byte("V")},
		"value": {"value": []byte("V"), "admin.conf": nil},
		"none":  {"token": []byte("T")},
	} {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: data}
		if err := env.Client.Create(ctx, sec); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), sec) })
	}
	s := storeAs(t, env, testenv.Olivia)
	for _, tt := range []struct{ secret, key, value string }{{"both", "admin.conf", "A"}, {"value", "value", "V"}} {
		k, v, err := s.SecretValue(ctx, ns, tt.secret, "admin.conf", "value")
		if err != nil || k != tt.key || string(v) != tt.value {
			t.Errorf("%s: %q %q %v", tt.secret, k, v, err)
		}
	}
	_, v, err := s.SecretValue(ctx, ns, "none", "admin.conf", "value")
	if !errors.Is(err, store.ErrNoSecretKey) || v != nil || err.Error() != "Secret web-0a1b2c3d/none has no key admin.conf or value: the Secret holds none of the keys" {
		t.Errorf("none: %v", err)
	}
	if _, _, err := s.SecretValue(ctx, ns, "missing", "admin.conf"); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := storeAs(t, env, testenv.Bob).SecretValue(ctx, ns, "both", "admin.conf"); !apierrors.IsForbidden(err) {
		t.Errorf("bob: %v, want Forbidden", err)
	}
}
