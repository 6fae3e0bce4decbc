package controlplane

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

func perms(c, u, d bool) stewardv1alpha1.Permissions {
	return stewardv1alpha1.Permissions{BlockCreate: c, BlockUpdate: u, BlockDelete: d}
}

func TestModes(t *testing.T) {
	// Every combination of the three fields has exactly one mode.
	want := map[stewardv1alpha1.Permissions]string{
		perms(true, true, true):    ReadOnly,
		perms(true, true, false):   Quota,
		perms(false, false, false): None,
		perms(true, false, false):  Custom,
		perms(false, true, false):  Custom,
		perms(false, false, true):  Custom,
		perms(true, false, true):   Custom,
		perms(false, true, true):   Custom,
	}
	for p, mode := range want {
		if got := Mode(p); got != mode {
			t.Errorf("Mode(%+v) = %q, want %q", p, got, mode)
		}
	}
	// Named modes round-trip; custom is no mode to ask for.
	for _, mode := range []string{ReadOnly, Quota, None} {
		p, ok := Permissions(mode)
		if !ok || Mode(p) != mode {
			t.Errorf("Permissions(%q) = %+v, %v", mode, p, ok)
		}
	}
	if p, _ := Permissions(ReadOnly); p != perms(true, true, true) {
		t.Errorf("read-only is %+v", p)
	}
	if p, _ := Permissions(Quota); p != perms(true, true, false) {
		t.Errorf("quota is %+v: deletion must stay allowed", p)
	}
	if _, ok := Permissions(Custom); ok {
		t.Error("Permissions(custom) is a mode")
	}
}

func TestBlocked(t *testing.T) {
	for p, want := range map[stewardv1alpha1.Permissions]string{
		perms(true, true, true):    "creation, update and deletion",
		perms(true, true, false):   "creation and update",
		perms(false, false, true):  "deletion",
		perms(false, false, false): "nothing",
	} {
		if got := Blocked(p); got != want {
			t.Errorf("Blocked(%+v) = %q, want %q", p, got, want)
		}
	}
}

func tcp(p stewardv1alpha1.Permissions, status string) *stewardv1alpha1.TenantControlPlane {
	t := &stewardv1alpha1.TenantControlPlane{}
	t.Spec.WritePermissions = p
	t.Status.KubernetesResources.Version.Status = status
	return t
}

func TestColumn(t *testing.T) {
	for _, tc := range []struct {
		tcp  *stewardv1alpha1.TenantControlPlane
		want string
	}{
		{tcp(perms(true, true, true), "WriteLimited"), "read-only (WriteLimited)"},
		{tcp(perms(true, true, false), "Ready"), "quota (Ready)"},
		{tcp(perms(false, true, false), ""), "custom"},
		{tcp(perms(false, false, false), "Ready"), "-"},
		{tcp(perms(false, false, false), ""), "-"},
		{tcp(perms(false, false, false), "WriteLimited"), "none (WriteLimited)"},
	} {
		if got := Column(tc.tcp); got != tc.want {
			t.Errorf("Column(%+v, %q) = %q, want %q", tc.tcp.Spec.WritePermissions, Status(tc.tcp), got, tc.want)
		}
	}
}

// fakeStore serves control planes by namespace/name and counts the requests. Only the
// methods States uses are implemented.
type fakeStore struct {
	store.Store
	mu      sync.Mutex
	tcps    map[string]*stewardv1alpha1.TenantControlPlane
	getErr  error // for every get
	listErr error
	gets    int
	lists   int
}

var tcpResource = schema.GroupResource{Group: "steward.butlerlabs.dev", Resource: "tenantcontrolplanes"}

func (f *fakeStore) GetControlPlane(_ context.Context, ns, name string) (*stewardv1alpha1.TenantControlPlane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.getErr != nil {
		return nil, f.getErr
	}
	if t := f.tcps[ns+"/"+name]; t != nil {
		return t.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(tcpResource, name)
}

func (f *fakeStore) ListControlPlanes(_ context.Context, ns string) ([]stewardv1alpha1.TenantControlPlane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	if f.listErr != nil {
		return nil, f.listErr
	}
	var out []stewardv1alpha1.TenantControlPlane
	for _, t := range f.tcps {
		out = append(out, *t.DeepCopy())
	}
	return out, nil
}

func (f *fakeStore) SetWritePermissions(context.Context, string, string, stewardv1alpha1.Permissions) (*stewardv1alpha1.TenantControlPlane, store.Result, error) {
	return nil, store.Result{}, errors.New("not used")
}

func (f *fakeStore) add(ns, name string, t *stewardv1alpha1.TenantControlPlane) {
	if f.tcps == nil {
		f.tcps = map[string]*stewardv1alpha1.TenantControlPlane{}
	}
	t.Namespace, t.Name = ns, name
	f.tcps[ns+"/"+name] = t
}

func tc(name, tenantNS string) v1alpha1.TenantCluster {
	return v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "payments", Name: name},
		Status:     v1alpha1.TenantClusterStatus{TenantNamespace: tenantNS},
	}
}

func TestStatesFewClusters(t *testing.T) {
	f := &fakeStore{}
	f.add("web-ns", "web", tcp(perms(true, true, true), "WriteLimited"))
	f.add("api-ns", "api", tcp(perms(false, false, false), "Ready"))
	clusters := []v1alpha1.TenantCluster{tc("web", "web-ns"), tc("api", "api-ns"), tc("new", ""), tc("gone", "gone-ns")}
	got, err := States(context.Background(), f, clusters)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"payments/web": "read-only (WriteLimited)", "payments/api": "-", "payments/new": "-", "payments/gone": "-"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("states %v, want %v", got, want)
	}
	// One get per cluster with a tenant namespace, no list.
	if f.gets != 3 || f.lists != 0 {
		t.Errorf("%d gets and %d lists, want 3 and 0", f.gets, f.lists)
	}
}

func TestStatesManyClustersListOnce(t *testing.T) {
	f := &fakeStore{}
	var clusters []v1alpha1.TenantCluster
	for i := range 3 * FewClusters {
		name := fmt.Sprintf("c%02d", i)
		clusters = append(clusters, tc(name, name+"-ns"))
		if i%2 == 0 {
			f.add(name+"-ns", name, tcp(perms(true, true, false), ""))
		}
	}
	got, err := States(context.Background(), f, clusters)
	if err != nil {
		t.Fatal(err)
	}
	if f.gets != 0 || f.lists != 1 {
		t.Errorf("%d gets and %d lists, want 0 and 1", f.gets, f.lists)
	}
	if got["payments/c00"] != "quota" || got["payments/c01"] != "-" {
		t.Errorf("states %v", got)
	}
}

func TestStatesUnknown(t *testing.T) {
	ctx := context.Background()
	forbidden := apierrors.NewForbidden(tcpResource, "", errors.New("no"))
	noAPI := fmt.Errorf("%w: not served", store.ErrNoControlPlaneAPI)
	other := errors.New("connection refused")
	many := make([]v1alpha1.TenantCluster, FewClusters+1)
	for i := range many {
		many[i] = tc(fmt.Sprint("c", i), fmt.Sprint("ns", i))
	}
	for _, tc := range []struct {
		name     string
		err      error
		clusters []v1alpha1.TenantCluster
		wantErr  bool
	}{
		{"forbidden", forbidden, []v1alpha1.TenantCluster{tc("web", "web-ns"), tc("new", "")}, false},
		{"no API", noAPI, []v1alpha1.TenantCluster{tc("web", "web-ns"), tc("new", "")}, false},
		{"other", other, []v1alpha1.TenantCluster{tc("web", "web-ns"), tc("new", "")}, true},
		{"list forbidden", forbidden, many, false},
		{"list failed", other, many, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeStore{getErr: tc.err, listErr: tc.err}
			got, err := States(ctx, f, tc.clusters)
			if (err != nil) != tc.wantErr {
				t.Errorf("error %v, want one: %v", err, tc.wantErr)
			}
			for _, c := range tc.clusters {
				want := Unknown
				if c.Status.TenantNamespace == "" {
					want = NoState
				}
				if got[Key(&c)] != want {
					t.Errorf("%s: %q, want %q", c.Name, got[Key(&c)], want)
				}
			}
		})
	}
}

func TestGetErrors(t *testing.T) {
	ctx := context.Background()
	f := &fakeStore{}
	c := tc("new", "")
	_, err := Get(ctx, f, &c)
	if !apierrors.IsNotFound(err) || err.Error() != "TenantCluster payments/new has no tenant namespace yet (status.tenantNamespace is empty): its control plane is not provisioned" {
		t.Errorf("no tenant namespace: %v", err)
	}
	c = tc("gone", "gone-ns")
	_, err = Get(ctx, f, &c)
	if !apierrors.IsNotFound(err) || err.Error() != "TenantControlPlane gone-ns/gone not found: TenantCluster payments/gone has no control plane (yet)" {
		t.Errorf("no control plane: %v", err)
	}
}
