package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// fakeReader serves objects from memory, counts calls, and fails or panics on demand.
type fakeReader struct {
	mu       sync.Mutex
	teams    map[string]*v1alpha1.Team
	clusters []v1alpha1.TenantCluster
	pcs      map[string]*v1alpha1.ProviderConfig // namespace/name
	users    []v1alpha1.User
	idps     []v1alpha1.IdentityProvider
	policies []v1alpha1.ClusterCreationPolicy
	sar      bool
	fail     map[string]error // by method name
	panicOn  string
	calls    map[string]int
}

func (r *fakeReader) call(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[name]++
	if name == r.panicOn {
		panic("boom in " + name)
	}
	return r.fail[name]
}

func (r *fakeReader) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[name]
}

func (r *fakeReader) GetTeam(_ context.Context, name string) (*v1alpha1.Team, error) {
	if err := r.call("GetTeam"); err != nil {
		return nil, err
	}
	t, ok := r.teams[name]
	if !ok {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("teams"), name)
	}
	return t.DeepCopy(), nil
}

func (r *fakeReader) ListClusters(_ context.Context, namespace string) ([]v1alpha1.TenantCluster, error) {
	if err := r.call("ListClusters"); err != nil {
		return nil, err
	}
	var out []v1alpha1.TenantCluster
	for _, c := range r.clusters {
		if namespace == "" || c.Namespace == namespace {
			out = append(out, *c.DeepCopy())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

func (r *fakeReader) GetProviderConfig(_ context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error) {
	if err := r.call("GetProviderConfig"); err != nil {
		return nil, err
	}
	pc, ok := r.pcs[namespace+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
	}
	return pc.DeepCopy(), nil
}

func (r *fakeReader) ListUsers(context.Context) ([]v1alpha1.User, error) {
	if err := r.call("ListUsers"); err != nil {
		return nil, err
	}
	return r.users, nil
}

func (r *fakeReader) ListIdentityProviders(context.Context) ([]v1alpha1.IdentityProvider, error) {
	if err := r.call("ListIdentityProviders"); err != nil {
		return nil, err
	}
	return r.idps, nil
}

func (r *fakeReader) CanUpdateTeams(context.Context, User) (bool, error) {
	if err := r.call("CanUpdateTeams"); err != nil {
		return false, err
	}
	return r.sar, nil
}

// payments is the worked example (examples/payments) in a fake reader.
func payments(t *testing.T) *fakeReader {
	t.Helper()
	r := &fakeReader{teams: map[string]*v1alpha1.Team{}, pcs: map[string]*v1alpha1.ProviderConfig{}}
	root := filepath.Join("..", "..", "examples", "payments")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs, err := manifest.Decode(p, b)
		if err != nil {
			return err
		}
		for _, o := range objs {
			switch x := o.Obj.(type) {
			case *v1alpha1.Team:
				r.teams[x.Name] = x
			case *v1alpha1.TenantCluster:
				r.clusters = append(r.clusters, *x)
			case *v1alpha1.ProviderConfig:
				r.pcs[x.Namespace+"/"+x.Name] = x
			case *v1alpha1.User:
				r.users = append(r.users, *x)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newTestHandler(t *testing.T, r Reader) *Handler {
	t.Helper()
	h, err := NewHandler(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// reviewBody is the AdmissionReview the API server would send.
func reviewBody(t *testing.T, op admissionv1.Operation, kind string, obj, old runtime.Object, user string, groups ...string) []byte {
	t.Helper()
	raw := func(o runtime.Object) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	req := &admissionv1.AdmissionRequest{
		UID:       types.UID("uid-1"),
		Kind:      metav1.GroupVersionKind{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Kind: kind},
		Operation: op,
		UserInfo:  authenticationv1.UserInfo{Username: user, Groups: groups},
		Object:    raw(obj),
		OldObject: raw(old),
	}
	if m, ok := obj.(metav1.Object); ok && obj != nil {
		req.Name, req.Namespace = m.GetName(), m.GetNamespace()
	} else if m, ok := old.(metav1.Object); ok && old != nil {
		req.Name, req.Namespace = m.GetName(), m.GetNamespace()
	}
	b, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends a body to the handler and returns the HTTP status and the review's response.
func post(t *testing.T, h http.Handler, path string, body []byte) (int, *admissionv1.AdmissionResponse) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return rec.Code, nil
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("response is no AdmissionReview: %v\n%s", err, rec.Body.String())
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" || out.Response == nil {
		t.Fatalf("response: %s", rec.Body.String())
	}
	if out.Response.UID != "uid-1" {
		t.Errorf("response uid %q, want the request's", out.Response.UID)
	}
	return rec.Code, out.Response
}

func tc(name, env, creator string, replicas int32) *v1alpha1.TenantCluster {
	c := &v1alpha1.TenantCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantCluster},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "payments", Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
			ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod"},
		},
	}
	c.Spec.Workers.Replicas = replicas
	if env != "" {
		c.Labels[v1alpha1.LabelEnvironment] = env
	}
	if creator != "" {
		c.Annotations[v1alpha1.AnnotationCreatorEmail] = creator
	}
	return c
}

func TestMalformedReviewIs400(t *testing.T) {
	h := newTestHandler(t, payments(t))
	valid := reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "bob@example.com", 1), nil, "bob@example.com")
	for _, c := range []struct {
		name, method, ctype, path string
		body                      []byte
		want                      int
	}{
		{"empty body", "POST", "application/json", PathTenantCluster, nil, 400},
		{"not JSON", "POST", "application/json", PathTenantCluster, []byte("{not json"), 400},
		{"truncated", "POST", "application/json", PathTenantCluster, valid[:len(valid)/2], 400},
		{"no kind", "POST", "application/json", PathTenantCluster, []byte(`{"request":{"uid":"u"}}`), 400},
		{"an empty object", "POST", "application/json", PathTeam, []byte(`{}`), 400},
		{"v1beta1", "POST", "application/json", PathTeam, []byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}}`), 400},
		{"another kind", "POST", "application/json", PathTeam, []byte(`{"apiVersion":"v1","kind":"Pod"}`), 400},
		{"no request", "POST", "application/json", PathProviderConfig, []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), 400},
		{"no uid", "POST", "application/json", PathProviderConfig, []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}`), 400},
		{"request not an object", "POST", "application/json", PathTenantCluster, []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[1,2]}`), 400},
		{"null", "POST", "application/json", PathTenantCluster, []byte(`null`), 400},
		{"content type", "POST", "text/plain", PathTenantCluster, valid, 400},
		{"too big", "POST", "application/json", PathTenantCluster, bytes.Repeat([]byte(" "), maxBodyBytes+1), 413},
		{"GET", "GET", "", PathTenantCluster, nil, 405},
		{"unknown path", "POST", "application/json", "/validate-something-else", valid, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, bytes.NewReader(c.body))
			if c.ctype != "" {
				req.Header.Set("Content-Type", c.ctype)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.want {
				t.Fatalf("HTTP %d, want %d: %s", rec.Code, c.want, rec.Body.String())
			}
			if c.want == 404 {
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || st.Code != int32(c.want) || st.Message == "" {
				t.Errorf("body is no Status with code %d: %s", c.want, rec.Body.String())
			}
		})
	}
	// The same handler still answers a good review afterwards.
	if code, resp := post(t, h, PathTenantCluster, valid); code != 200 || !resp.Allowed {
		t.Fatalf("valid review after malformed ones: HTTP %d %+v", code, resp)
	}
	// A doubled slash (a service path joined to a URL ending in "/") reaches the webhook.
	if code, _ := post(t, h, "/"+PathTenantCluster, valid); code != 200 {
		t.Fatalf("//path: HTTP %d", code)
	}
}

func TestBadObjectsFailClosed(t *testing.T) {
	h := newTestHandler(t, payments(t))
	// A Team sent to the TenantCluster webhook.
	team := &v1alpha1.Team{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTeam}, ObjectMeta: metav1.ObjectMeta{Name: "t"}}
	_, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Create, "Team", team, nil, "bob@example.com"))
	if resp.Allowed || resp.Result.Code != 400 || !strings.Contains(resp.Result.Message, "validates TenantCluster, not butler.butlerlabs.dev/v1alpha1, Kind=Team") {
		t.Errorf("wrong kind: %+v", resp.Result)
	}
	// The request says TenantCluster but the object is a Team.
	_, resp = post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", team, nil, "bob@example.com"))
	if resp.Allowed || resp.Result.Code != 400 || !strings.Contains(resp.Result.Message, "decoding object: got butler.butlerlabs.dev/v1alpha1, Kind=Team") {
		t.Errorf("object of another kind: %+v", resp.Result)
	}
	// An object that does not decode.
	body := bytes.Replace(reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "", 1), nil, "bob@example.com"),
		[]byte(`"replicas":1`), []byte(`"replicas":"one"`), 1)
	_, resp = post(t, h, PathTenantCluster, body)
	if resp.Allowed || resp.Result.Code != 400 || !strings.Contains(resp.Result.Message, "decoding object") {
		t.Errorf("undecodable object: %+v", resp.Result)
	}
	// An update without the old object.
	_, resp = post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", team, nil, "bob@example.com"))
	if resp.Allowed || resp.Result.Code != 400 || resp.Result.Message != "the request has no oldObject" {
		t.Errorf("update without oldObject: %+v", resp.Result)
	}
}

// TestTenantClusterIsThePolicy: for the worked example's scenarios the webhook answers
// exactly what policy.AdmitCluster says, as a 403 with reason Forbidden.
func TestTenantClusterIsThePolicy(t *testing.T) {
	r := payments(t)
	h := newTestHandler(t, r)
	type want struct {
		allowed bool
		message string
	}
	for _, c := range []struct {
		name string
		user string
		obj  *v1alpha1.TenantCluster
		want want
	}{
		{"scenario 1: carol's third dev cluster", "carol@example.com", tc("sandbox-3", "dev", "carol@example.com", 2),
			want{false, `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "carol@example.com" already owns 2 cluster(s) in environment "dev"; env limits to 2 per member`}},
		{"scenario 2: carol's first prod cluster", "carol@example.com", tc("checkout-2", "prod", "carol@example.com", 3), want{true, ""}},
		{"scenario 3: bob's second prod cluster", "bob@example.com", tc("checkout-2", "prod", "bob@example.com", 3),
			want{false, `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "bob@example.com" already owns 1 cluster(s) in environment "prod"; env limits to 1 per member`}},
		{"creator names someone else", "bob@example.com", tc("x", "dev", "carol@example.com", 1),
			want{false, `metadata.annotations[butler.butlerlabs.dev/creator-email]: Invalid value: "carol@example.com": butler.butlerlabs.dev/creator-email must match the requesting identity "bob@example.com"; environment "dev" enforces per-member caps and cannot accept an annotation claiming a different user`}},
		{"creator compared case-insensitively", "Bob@Example.com", tc("x", "dev", "bob@example.com", 1), want{true, ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", c.obj, nil, c.user))
			if code != 200 {
				t.Fatalf("HTTP %d", code)
			}
			if resp.Allowed != c.want.allowed {
				t.Fatalf("allowed %v, want %v: %+v", resp.Allowed, c.want.allowed, resp.Result)
			}
			// The policy library, on the same inputs.
			d := policy.AdmitCluster(policy.ClusterRequest{Operation: policy.Create, Cluster: c.obj, Team: r.teams["payments"],
				Siblings: r.clusters, ProviderConfig: r.pcs["butler-system/harvester-prod"], Username: c.user})
			if c.want.allowed {
				if !d.Allowed() {
					t.Fatalf("the policy denies: %v", d.Err())
				}
				return
			}
			if resp.Result.Code != 403 || resp.Result.Reason != metav1.StatusReasonForbidden {
				t.Errorf("status %d %q, want 403 Forbidden", resp.Result.Code, resp.Result.Reason)
			}
			if resp.Result.Message != c.want.message || d.Err().Error() != c.want.message {
				t.Errorf("message\n got: %s\n policy: %v\nwant: %s", resp.Result.Message, d.Err(), c.want.message)
			}
		})
	}
}

func TestTenantClusterReads(t *testing.T) {
	t.Run("env label guard reads nothing", func(t *testing.T) {
		r := payments(t)
		r.fail = map[string]error{"GetTeam": errors.New("down"), "ListClusters": errors.New("down"), "GetProviderConfig": errors.New("down")}
		h := newTestHandler(t, r)
		old := tc("carol-sandbox-1", "dev", "carol@example.com", 2)
		cur := tc("carol-sandbox-1", "prod", "carol@example.com", 2)
		_, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Update, "TenantCluster", cur, old, "carol@example.com"))
		want := "metadata.labels[butler.butlerlabs.dev/environment]: Forbidden: env label changes require the \"butler.butlerlabs.dev/migration-operation\" annotation set to \"true\"; use `butleradm env migrate`"
		if resp.Allowed || resp.Result.Code != 403 || resp.Result.Message != want {
			t.Fatalf("%+v", resp.Result)
		}
		if n := r.count("GetTeam") + r.count("ListClusters") + r.count("GetProviderConfig"); n != 0 {
			t.Errorf("%d reads for a label guard", n)
		}
	})
	t.Run("a migration patch lists no clusters; a scale up does", func(t *testing.T) {
		r := payments(t)
		h := newTestHandler(t, r)
		old := tc("ledger-legacy", "", "bob@example.com", 2)
		cur := tc("ledger-legacy", "prod", "bob@example.com", 2)
		cur.Annotations[v1alpha1.AnnotationMigration] = v1alpha1.MigrationAnnotationValue
		for _, c := range []*v1alpha1.TenantCluster{old, cur} {
			c.Spec.Workers.MachineTemplate.CPU = 4
		}
		_, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Update, "TenantCluster", cur, old, "olivia@example.com"))
		if !resp.Allowed {
			t.Fatalf("migration patch refused: %+v", resp.Result)
		}
		if r.count("GetTeam") != 1 || r.count("ListClusters") != 0 {
			t.Errorf("reads for a migration patch: %v", r.calls)
		}
		r.calls = nil
		bigger := cur.DeepCopy()
		bigger.Spec.Workers.Replicas = 3 // more CPU
		post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Update, "TenantCluster", bigger, cur, "olivia@example.com"))
		if r.count("ListClusters") != 1 {
			t.Errorf("reads for a scale up: %v", r.calls)
		}
	})
	t.Run("team read fails closed", func(t *testing.T) {
		r := payments(t)
		r.fail = map[string]error{"GetTeam": apierrors.NewServiceUnavailable("etcd is away")}
		_, resp := post(t, newTestHandler(t, r), PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "bob@example.com", 1), nil, "bob@example.com"))
		if resp.Allowed || resp.Result.Code != 500 || resp.Result.Message != `fetch team "payments": etcd is away` {
			t.Fatalf("%+v", resp.Result)
		}
	})
	t.Run("cluster list fails closed", func(t *testing.T) {
		r := payments(t)
		r.fail = map[string]error{"ListClusters": apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), "", errors.New("no"))}
		_, resp := post(t, newTestHandler(t, r), PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "bob@example.com", 1), nil, "bob@example.com"))
		if resp.Allowed || resp.Result.Code != 500 || !strings.HasPrefix(resp.Result.Message, `list TenantClusters in namespace "payments": `) {
			t.Fatalf("%+v", resp.Result)
		}
	})
	t.Run("provider read fails closed", func(t *testing.T) {
		r := payments(t)
		r.fail = map[string]error{"GetProviderConfig": errors.New("timeout")}
		_, resp := post(t, newTestHandler(t, r), PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "bob@example.com", 1), nil, "bob@example.com"))
		if resp.Allowed || resp.Result.Code != 500 || resp.Result.Message != "failed to fetch ProviderConfig butler-system/harvester-prod: timeout" {
			t.Fatalf("%+v", resp.Result)
		}
	})
	t.Run("missing team skips env checks, missing provider is Not found", func(t *testing.T) {
		r := payments(t)
		c := tc("x", "nonsense", "", 1)
		c.Spec.TeamRef.Name = "nobody"
		c.Spec.ProviderConfigRef.Name = "gone"
		_, resp := post(t, newTestHandler(t, r), PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", c, nil, "bob@example.com"))
		if resp.Allowed || resp.Result.Message != `spec.providerConfigRef.name: Not found: "gone"` {
			t.Fatalf("%+v", resp.Result)
		}
	})
	t.Run("a panic fails closed", func(t *testing.T) {
		r := payments(t)
		r.panicOn = "GetTeam"
		_, resp := post(t, newTestHandler(t, r), PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "bob@example.com", 1), nil, "bob@example.com"))
		if resp.Allowed || resp.Result.Code != 500 || !strings.Contains(resp.Result.Message, "boom in GetTeam") {
			t.Fatalf("%+v", resp.Result)
		}
	})
	t.Run("delete is not the cluster webhook's", func(t *testing.T) {
		r := payments(t)
		_, resp := post(t, newTestHandler(t, r), PathTenantCluster, reviewBody(t, admissionv1.Delete, "TenantCluster", nil, tc("carol-sandbox-1", "dev", "", 1), "bob@example.com"))
		if !resp.Allowed {
			t.Fatalf("%+v", resp.Result)
		}
	})
}

func TestTeam(t *testing.T) {
	r := payments(t)
	h := newTestHandler(t, r)
	old := r.teams["payments"]
	withDevCap := func(n int32) *v1alpha1.Team {
		t := old.DeepCopy()
		t.Spec.Environments[0].Limits.MaxClustersPerMember = &n
		return t
	}
	const operatorMsg = `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`

	// An operator changing env limits: not a team admin; the platform-admin question is
	// asked, and bob's User object answers it (isPlatformAdmin false): no review.
	_, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", withDevCap(3), old, "bob@example.com", "system:authenticated"))
	if resp.Allowed || resp.Result.Code != 403 || resp.Result.Message != operatorMsg {
		t.Fatalf("%+v", resp.Result)
	}
	if r.count("ListUsers") != 1 || r.count("CanUpdateTeams") != 0 || r.count("ListIdentityProviders") != 0 {
		t.Errorf("calls %v", r.calls)
	}
	// A change that needs no platform admin asks nothing.
	r.calls = nil
	desc := old.DeepCopy()
	desc.Spec.Description = "new"
	if _, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", desc, old, "bob@example.com")); !resp.Allowed {
		t.Fatalf("%+v", resp.Result)
	}
	if len(r.calls) != 0 {
		t.Errorf("reads for a description change: %v", r.calls)
	}
	// The review decides only for someone no User matches: yes for dave, and bob's
	// User still says no although the review would say yes.
	r.sar = true
	if _, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", withDevCap(3), old, "dave@example.com")); !resp.Allowed {
		t.Fatalf("%+v", resp.Result)
	}
	if _, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", withDevCap(3), old, "bob@example.com")); resp.Allowed {
		t.Fatal("the review overrode bob's User object")
	}
	r.sar = false
	// olivia's User object says admin (isPlatformAdmin): no review needed.
	r.calls = nil
	if _, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", withDevCap(3), old, "olivia@example.com")); !resp.Allowed {
		t.Fatalf("%+v", resp.Result)
	}
	if r.count("CanUpdateTeams") != 0 {
		t.Errorf("review asked although the User object decides")
	}
	// A group with role admin in an IdentityProvider is not read by the server's test.
	r.idps = []v1alpha1.IdentityProvider{{ObjectMeta: metav1.ObjectMeta{Name: "corp"}, Spec: v1alpha1.IdentityProviderSpec{
		PlatformRoleGroups: []v1alpha1.PlatformRoleGroup{{Name: "platform", Role: "admin"}}}}}
	if _, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", withDevCap(3), old, "bob@example.com", "platform")); resp.Allowed {
		t.Fatal("an IdentityProvider group made a platform admin")
	}
	// Resolution failing fails closed.
	r.fail = map[string]error{"ListUsers": errors.New("etcd is away")}
	_, resp = post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", withDevCap(4), old, "bob@example.com"))
	if resp.Allowed || resp.Result.Code != 500 || resp.Result.Message != "resolve platform admin: list users: etcd is away" {
		t.Fatalf("%+v", resp.Result)
	}
	// Env access naming a stranger needs no reads at all and fails whoever asks.
	r.fail = nil
	stranger := old.DeepCopy()
	stranger.Spec.Environments[1].Access.Users = append(stranger.Spec.Environments[1].Access.Users, v1alpha1.TeamUser{Name: "mallory@example.com", Role: "admin"})
	_, resp = post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", stranger, old, "olivia@example.com"))
	want := `spec.environments[1].access.users["mallory@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`
	if resp.Allowed || resp.Result.Message != want {
		t.Fatalf("%+v", resp.Result)
	}
	if d := policy.AdmitTeam(policy.Update, old, stranger, policy.Identity{Username: "olivia@example.com"}, true); d == nil || d.Message != want {
		t.Fatalf("policy: %v", d)
	}
}

func TestProviderConfig(t *testing.T) {
	r := payments(t)
	h := newTestHandler(t, r)
	pc := r.pcs["butler-system/harvester-prod"]
	_, resp := post(t, h, PathProviderConfig, reviewBody(t, admissionv1.Delete, "ProviderConfig", nil, pc, "olivia@example.com"))
	if resp.Allowed || resp.Result.Code != 403 || resp.Result.Message != `metadata.name: Forbidden: cannot delete ProviderConfig "harvester-prod": TenantCluster payments/bob-checkout still references it` {
		t.Fatalf("%+v", resp.Result)
	}
	aws := &v1alpha1.ProviderConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindProviderConfig},
		ObjectMeta: metav1.ObjectMeta{Name: "aws", Namespace: "butler-system"},
		Spec: v1alpha1.ProviderConfigSpec{Provider: "aws", CredentialsRef: v1alpha1.SecretReference{Name: "c"},
			AWS: &v1alpha1.AWSConfig{Region: "us-east-1"}, Network: &v1alpha1.ProviderNetwork{Mode: "ipam"}},
	}
	_, resp = post(t, h, PathProviderConfig, reviewBody(t, admissionv1.Create, "ProviderConfig", aws, nil, "olivia@example.com"))
	want := `[spec.network.poolRefs: Required value: at least one poolRef is required when network mode is "ipam", spec.network.mode: Forbidden: IPAM mode is not supported for cloud providers]`
	if resp.Allowed || resp.Result.Message != want || policy.ValidateProviderConfig(aws).ToAggregate().Error() != want {
		t.Fatalf("%+v", resp.Result)
	}
	// Unused: deleted.
	if _, resp := post(t, h, PathProviderConfig, reviewBody(t, admissionv1.Delete, "ProviderConfig", nil, aws, "olivia@example.com")); !resp.Allowed {
		t.Fatalf("%+v", resp.Result)
	}
	r.fail = map[string]error{"ListClusters": errors.New("etcd is away")}
	_, resp = post(t, h, PathProviderConfig, reviewBody(t, admissionv1.Delete, "ProviderConfig", nil, aws, "olivia@example.com"))
	if resp.Allowed || resp.Result.Code != 500 || resp.Result.Message != "list TenantClusters: etcd is away" {
		t.Fatalf("%+v", resp.Result)
	}
}

func TestAuditAllowsWhatItWouldRefuse(t *testing.T) {
	var logs bytes.Buffer
	h, err := NewHandler(payments(t), newLogger(&logs))
	if err != nil {
		t.Fatal(err)
	}
	h.SetMode(Audit)
	body := reviewBody(t, admissionv1.Create, "TenantCluster", tc("sandbox-3", "dev", "carol@example.com", 2), nil, "carol@example.com")
	if _, resp := post(t, h, PathTenantCluster, body); !resp.Allowed {
		t.Fatalf("audit refused: %+v", resp.Result)
	}
	if !strings.Contains(logs.String(), `"msg":"audit: would refuse"`) || !strings.Contains(logs.String(), `already owns 2 cluster(s)`) {
		t.Errorf("log: %s", logs.String())
	}
	h.SetMode(Enforce)
	if _, resp := post(t, h, PathTenantCluster, body); resp.Allowed {
		t.Fatal("enforcing again, allowed")
	}
	if !strings.Contains(logs.String(), `"msg":"refused"`) || !strings.Contains(logs.String(), `"rules":["member-max-clusters"]`) {
		t.Errorf("log: %s", logs.String())
	}
}

func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// An update that leaves the spec alone passes even when the spec breaks a rule (it may
// predate the webhook): otherwise removing a finalizer could be refused forever.
func TestProviderConfigUpdateWithoutSpecChange(t *testing.T) {
	h := newTestHandler(t, payments(t))
	bad := &v1alpha1.ProviderConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindProviderConfig},
		ObjectMeta: metav1.ObjectMeta{Name: "aws", Namespace: "butler-system", Finalizers: []string{"butler.butlerlabs.dev/providerconfig"}},
		Spec: v1alpha1.ProviderConfigSpec{Provider: "aws", CredentialsRef: v1alpha1.SecretReference{Name: "c"},
			AWS: &v1alpha1.AWSConfig{Region: "us-east-1"}, Network: &v1alpha1.ProviderNetwork{Mode: "ipam"}},
	}
	unfinalized := bad.DeepCopy()
	unfinalized.Finalizers = nil
	if _, resp := post(t, h, PathProviderConfig, reviewBody(t, admissionv1.Update, "ProviderConfig", unfinalized, bad, "system:serviceaccount:butler-system:butler-controller")); !resp.Allowed {
		t.Fatalf("finalizer removal refused: %+v", resp.Result)
	}
	changed := bad.DeepCopy()
	changed.Spec.AWS.Region = "eu-west-1"
	if _, resp := post(t, h, PathProviderConfig, reviewBody(t, admissionv1.Update, "ProviderConfig", changed, bad, "olivia@example.com")); resp.Allowed {
		t.Fatal("a spec change of a broken ProviderConfig allowed")
	}
}

func TestUpdatesChangingNothingTheRulesReadPass(t *testing.T) {
	r := payments(t)
	r.fail = map[string]error{"GetTeam": errors.New("down"), "ListClusters": errors.New("down"), "GetProviderConfig": errors.New("down"), "ListUsers": errors.New("down")}
	h := newTestHandler(t, r)
	// A cluster over a per-cluster node limit lowered after it was made: its finalizer
	// can still be removed.
	old := tc("big", "dev", "carol@example.com", 9)
	old.Finalizers = []string{"butler.butlerlabs.dev/tenantcluster"}
	cur := old.DeepCopy()
	cur.Finalizers = nil
	if _, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Update, "TenantCluster", cur, old, "system:serviceaccount:butler-system:butler-controller")); !resp.Allowed {
		t.Fatalf("finalizer removal: %+v", resp.Result)
	}
	// A label change is not "nothing".
	cur.Labels[v1alpha1.LabelEnvironment] = "prod"
	if _, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Update, "TenantCluster", cur, old, "carol@example.com")); resp.Allowed {
		t.Fatal("label change allowed")
	}
	// A Team whose environment access names a stranger (from before the webhook).
	team := r.teams["payments"].DeepCopy()
	team.Spec.Environments[1].Access.Users = append(team.Spec.Environments[1].Access.Users, v1alpha1.TeamUser{Name: "mallory@example.com", Role: "admin"})
	team.Finalizers = []string{"butler.butlerlabs.dev/team"}
	unfinalized := team.DeepCopy()
	unfinalized.Finalizers = nil
	if _, resp := post(t, h, PathTeam, reviewBody(t, admissionv1.Update, "Team", unfinalized, team, "system:serviceaccount:butler-system:butler-controller")); !resp.Allowed {
		t.Fatalf("team finalizer removal: %+v", resp.Result)
	}
	if n := len(r.calls); n != 0 {
		t.Errorf("reads: %v", r.calls)
	}
}

func TestDormantReadsNothing(t *testing.T) {
	r := payments(t)
	r.panicOn = "GetTeam"
	h := newTestHandler(t, r)
	h.SetMode(Dormant)
	body := reviewBody(t, admissionv1.Create, "TenantCluster", tc("sandbox-3", "dev", "carol@example.com", 2), nil, "carol@example.com")
	if _, resp := post(t, h, PathTenantCluster, body); !resp.Allowed {
		t.Fatalf("dormant refused: %+v", resp.Result)
	}
	if len(r.calls) != 0 {
		t.Errorf("dormant read: %v", r.calls)
	}
	// Malformed is still malformed.
	if code, _ := post(t, h, PathTenantCluster, []byte("{")); code != 400 {
		t.Errorf("malformed while dormant: HTTP %d", code)
	}
}
