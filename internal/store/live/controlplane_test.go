package live_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

func TestWritePermissionsPatch(t *testing.T) {
	for _, tc := range []struct {
		p    stewardv1alpha1.Permissions
		want string
	}{
		{stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true, BlockDelete: true},
			`{"spec":{"writePermissions":{"blockCreation":true,"blockDeletion":true,"blockUpdate":true}}}`},
		{stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true},
			`{"spec":{"writePermissions":{"blockCreation":true,"blockDeletion":null,"blockUpdate":true}}}`},
		{stewardv1alpha1.Permissions{},
			`{"spec":{"writePermissions":{"blockCreation":null,"blockDeletion":null,"blockUpdate":null}}}`},
	} {
		got, err := live.WritePermissionsPatch(tc.p)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s, %v; want %s", tc.p, got, err, tc.want)
		}
	}
}

// discoveryServer answers the discovery documents of steward.butlerlabs.dev as given ("" is
// 404) and counts the requests.
func discoveryServer(t *testing.T, group, version string) (*live.Store, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var body string
		switch r.URL.Path {
		case "/apis/steward.butlerlabs.dev":
			body = group
		case "/apis/steward.butlerlabs.dev/v1alpha1":
			body = version
		}
		if body == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	s, err := live.NewForConfig(&rest.Config{Host: srv.URL}, "")
	if err != nil {
		t.Fatal(err)
	}
	return s, &requests
}

// Without Steward's API every request would be a bare 404; discovery tells it from a
// missing control plane, once per store.
func TestControlPlaneAPIMissing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, group, version, want string
	}{
		{"no group", "", "", "does not serve tenantcontrolplanes.steward.butlerlabs.dev/v1alpha1: install Steward's CRDs"},
		{"other version",
			`{"kind":"APIGroup","apiVersion":"v1","name":"steward.butlerlabs.dev","versions":[{"groupVersion":"steward.butlerlabs.dev/v1beta1","version":"v1beta1"}]}`, "",
			"serves steward.butlerlabs.dev only in v1beta1, and the toolkit reads v1alpha1"},
		{"no resource", "",
			`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"steward.butlerlabs.dev/v1alpha1","resources":[{"name":"datastores","namespaced":false,"kind":"DataStore","verbs":["get"]}]}`,
			`serves steward.butlerlabs.dev/v1alpha1 but no namespaced TenantControlPlane resource "tenantcontrolplanes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, requests := discoveryServer(t, tc.group, tc.version)
			_, err := s.GetControlPlane(ctx, "web-1a2b3c4d", "web")
			if !errors.Is(err, store.ErrNoControlPlaneAPI) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("get: %v; want ErrNoControlPlaneAPI saying %q", err, tc.want)
			}
			if apierrors.IsNotFound(err) {
				t.Errorf("a missing API reads as a missing object: %v", err)
			}
			n := requests.Load()
			if _, err := s.ListControlPlanes(ctx, ""); !errors.Is(err, store.ErrNoControlPlaneAPI) {
				t.Errorf("list: %v", err)
			}
			if _, _, err := s.SetWritePermissions(ctx, "web-1a2b3c4d", "web", stewardv1alpha1.Permissions{}); !errors.Is(err, store.ErrNoControlPlaneAPI) {
				t.Errorf("set: %v", err)
			}
			if requests.Load() != n {
				t.Errorf("discovery asked again: %d requests after %d", requests.Load(), n)
			}
		})
	}
}

// On the test control plane (Steward's CRD installed from config/crd): a patch changes
// the three fields and nothing else, reads and lists see the result.
func TestSetWritePermissionsLive(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	const ns = "web-1a2b3c4d"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := env.CreateYAML(ctx, []byte(`apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata:
  name: web
  namespace: web-1a2b3c4d
spec:
  dataStore: default
  writePermissions:
    blockUpdate: false
status:
  kubernetesResources:
    version:
      status: Ready
`)); err != nil {
		t.Fatal(err)
	}
	s := storeAs(t, env, "admin")
	if _, err := s.GetControlPlane(ctx, ns, "nope"); !apierrors.IsNotFound(err) {
		t.Fatalf("missing: %v, want NotFound", err)
	}
	for _, p := range []stewardv1alpha1.Permissions{
		{BlockCreate: true, BlockUpdate: true, BlockDelete: true},
		{BlockCreate: true, BlockUpdate: true},
		{BlockDelete: true},
		{},
	} {
		got, res, err := s.SetWritePermissions(ctx, ns, "web", p)
		if err != nil || got.Spec.WritePermissions != p || res.Location == "" || got.Kind != "TenantControlPlane" {
			t.Fatalf("%+v: %+v %+v %v", p, got, res, err)
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(stewardv1alpha1.GroupVersion.WithKind("TenantControlPlane"))
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, u); err != nil {
			t.Fatal(err)
		}
		wp, _, _ := unstructured.NestedMap(u.Object, "spec", "writePermissions")
		want := map[string]any{}
		for k, on := range map[string]bool{"blockCreation": p.BlockCreate, "blockUpdate": p.BlockUpdate, "blockDeletion": p.BlockDelete} {
			if on {
				want[k] = true
			}
		}
		if fmt.Sprint(wp) != fmt.Sprint(want) {
			t.Errorf("%+v: writePermissions %v, want %v", p, wp, want)
		}
		if ds, _, _ := unstructured.NestedString(u.Object, "spec", "dataStore"); ds != "default" {
			t.Errorf("spec.dataStore lost: %v", u.Object["spec"])
		}
		if st, _, _ := unstructured.NestedString(u.Object, "status", "kubernetesResources", "version", "status"); st != "Ready" {
			t.Errorf("status changed: %v", u.Object["status"])
		}
	}
	tcp, err := s.GetControlPlane(ctx, ns, "web")
	if err != nil || tcp.Status.KubernetesResources.Version.Status != "Ready" || tcp.ManagedFields != nil {
		t.Fatalf("get: %+v %v", tcp, err)
	}
	all, err := s.ListControlPlanes(ctx, "")
	if err != nil || len(all) != 1 || all[0].Namespace != ns || all[0].Kind != "TenantControlPlane" {
		t.Fatalf("list: %+v %v", all, err)
	}
	// Bob has no RBAC on tenantcontrolplanes: the server's refusal, as it is.
	if _, err := storeAs(t, env, "bob@example.com").ListControlPlanes(ctx, ""); !apierrors.IsForbidden(err) {
		t.Errorf("bob lists: %v, want Forbidden", err)
	}
}
