package live_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// setup starts (or reuses) the control plane and loads the payments example afresh.
func setup(t *testing.T) *testenv.Env {
	t.Helper()
	env := testenv.Start(t)
	ctx := context.Background()
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	return env
}

func storeAs(t *testing.T, env *testenv.Env, user string) *live.Store {
	t.Helper()
	s, err := live.New(live.Options{Kubeconfig: env.Kubeconfig(user)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestIdentityFromServer(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	for _, tc := range []struct {
		user      string
		admin     bool
		reasonHas string
	}{
		{testenv.Olivia, true, `User "olivia" has isPlatformAdmin true`},
		{testenv.Bob, false, ""},
		{testenv.Dave, false, ""},
		// The envtest admin has no User object; its RBAC (system:masters) decides.
		{"admin", true, "SelfSubjectAccessReview"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			s := storeAs(t, env, tc.user)
			id, err := s.Identity(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if id.Username != tc.user {
				t.Errorf("username %q, want %q", id.Username, tc.user)
			}
			if !contains(id.Groups, "system:authenticated") {
				t.Errorf("groups %v lack system:authenticated", id.Groups)
			}
			admin, why, err := s.PlatformAdmin(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if admin != tc.admin || !strings.Contains(why, tc.reasonHas) {
				t.Errorf("PlatformAdmin = %v, %q; want %v, containing %q", admin, why, tc.admin, tc.reasonHas)
			}
		})
	}
}

// The platform-admin answer is asked of the server once per identity: a command that
// checks before its confirmation prompt and again when it writes sends no second set of
// requests.
func TestPlatformAdminAskedOnce(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	for _, user := range []string{testenv.Olivia, "admin"} { // a User object; RBAC only
		t.Run(user, func(t *testing.T) {
			var requests atomic.Int32
			cfg := env.UserConfig(user)
			cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
				return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
					requests.Add(1)
					return rt.RoundTrip(r)
				})
			}
			s, err := live.NewForConfig(cfg, "")
			if err != nil {
				t.Fatal(err)
			}
			id, err := s.Identity(ctx)
			if err != nil {
				t.Fatal(err)
			}
			first := requests.Load()
			ok1, why1, err := s.PlatformAdmin(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			asked := requests.Load() - first
			ok2, why2, err := s.PlatformAdmin(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !ok1 || ok2 != ok1 || why2 != why1 {
				t.Errorf("answers %v %q, then %v %q", ok1, why1, ok2, why2)
			}
			if asked == 0 || requests.Load()-first != asked {
				t.Errorf("%d requests for the first answer, %d for the second; want some, then none", asked, requests.Load()-first-asked)
			}
		})
	}
}

// A user who may not impersonate gets the server's refusal, not the identity they typed.
func TestImpersonationRefused(t *testing.T) {
	env := setup(t)
	s, err := live.New(live.Options{Kubeconfig: env.Kubeconfig(testenv.Bob), As: testenv.Alice})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Identity(context.Background())
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Identity with --as by a non-impersonator: %v, want Forbidden", err)
	}
	if !strings.Contains(err.Error(), "cannot impersonate") {
		t.Errorf("message %q does not say so", err)
	}

	// The admin may impersonate: the identity is then the impersonated one.
	s, err = live.New(live.Options{Kubeconfig: env.Kubeconfig(testenv.Olivia), As: testenv.Carol, AsGroups: []string{"payments-devs"}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if id.Username != testenv.Carol || !contains(id.Groups, "payments-devs") {
		t.Errorf("impersonated identity %+v", id)
	}
}

func TestReadsAndErrorCodes(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Bob)

	team, err := s.GetTeam(ctx, "payments")
	if err != nil {
		t.Fatal(err)
	}
	if team.Kind != v1alpha1.KindTeam || team.APIVersion != v1alpha1.APIVersion || team.ManagedFields != nil {
		t.Errorf("team type meta %+v, managedFields %v", team.TypeMeta, team.ManagedFields)
	}
	if team.TeamNamespace() != "payments" || team.Status.Namespace != "payments" {
		t.Errorf("team namespace %q (status %q)", team.TeamNamespace(), team.Status.Namespace)
	}
	clusters, err := s.ListClusters(ctx, team.TeamNamespace())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range clusters {
		names = append(names, c.Name)
	}
	if got, want := strings.Join(names, " "), "bob-checkout carol-sandbox-1 carol-sandbox-2 ledger-legacy"; got != want {
		t.Errorf("clusters %q, want %q", got, want)
	}
	if _, err := s.GetProviderConfig(ctx, "butler-system", "harvester-prod"); err != nil {
		t.Errorf("platform ProviderConfig: %v", err)
	}

	_, err = s.GetCluster(ctx, "payments", "nope")
	if !apierrors.IsNotFound(err) {
		t.Errorf("missing cluster: %v, want NotFound", err)
	}
	_, err = s.ListClusters(ctx, "butler-system")
	if !apierrors.IsForbidden(err) {
		t.Errorf("list outside RBAC: %v, want Forbidden", err)
	}
	if _, err := s.ListUsers(ctx); !apierrors.IsForbidden(err) {
		t.Errorf("bob listing Users: %v, want Forbidden", err)
	}
}

func TestCreateCluster(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	c := cluster("payments", "web")
	addons := []v1alpha1.TenantAddon{{
		ObjectMeta: metav1.ObjectMeta{Name: "web-cert-manager", Namespace: "payments"},
		Spec:       v1alpha1.TenantAddonSpec{ClusterRef: v1alpha1.LocalObjectReference{Name: "web"}, Addon: "cert-manager", Version: "v1.16.0"},
	}}

	// dave only reads: the server refuses, exit 4.
	_, err := storeAs(t, env, testenv.Dave).CreateCluster(ctx, c.DeepCopy(), nil)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("dave creating: %v, want Forbidden", err)
	}

	s := storeAs(t, env, testenv.Bob)
	res, err := s.CreateCluster(ctx, c.DeepCopy(), addons)
	if err != nil {
		t.Fatal(err)
	}
	if res.Location != s.Host() {
		t.Errorf("location %q", res.Location)
	}
	got, err := s.GetCluster(ctx, "payments", "web")
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels[v1alpha1.LabelEnvironment] != "prod" || got.Annotations[v1alpha1.AnnotationCreatorEmail] != testenv.Bob ||
		got.Spec.Workers.Replicas != 3 || got.Spec.TeamRef.Name != "payments" {
		t.Errorf("created cluster %+v", got)
	}
	var a v1alpha1.TenantAddon
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: "web-cert-manager"}, &a); err != nil {
		t.Errorf("addon: %v", err)
	}

	_, err = s.CreateCluster(ctx, c.DeepCopy(), nil)
	if !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v, want AlreadyExists", err)
	}
}

func TestUpdateTeamPatchesSpecOnly(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	s := storeAs(t, env, testenv.Olivia)
	old, err := s.GetTeam(ctx, "payments")
	if err != nil {
		t.Fatal(err)
	}

	// Someone labels the team after we read it: a change outside spec that a blind full
	// update would also carry, but that must survive our patch... and that makes our
	// read stale, so the precondition refuses the patch.
	var cur v1alpha1.Team
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "payments"}, &cur); err != nil {
		t.Fatal(err)
	}
	cur.Labels = map[string]string{"cost-center": "cc-42"}
	if err := env.Client.Update(ctx, &cur); err != nil {
		t.Fatal(err)
	}
	updated := old.DeepCopy()
	updated.Spec.Description = "Cards, ledger and payouts"
	updated.Labels = map[string]string{"ignored": "true"} // not spec: never sent
	_, err = s.UpdateTeam(ctx, old, updated)
	if !apierrors.IsConflict(err) {
		t.Fatalf("patch on a stale read: %v, want Conflict", err)
	}

	old, err = s.GetTeam(ctx, "payments")
	if err != nil {
		t.Fatal(err)
	}
	updated = old.DeepCopy()
	updated.Spec.Description = "Cards, ledger and payouts"
	updated.Spec.Environments = updated.Spec.Environments[:1] // drop prod
	updated.Labels = map[string]string{"ignored": "true"}
	if _, err := s.UpdateTeam(ctx, old, updated); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTeam(ctx, "payments")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Description != "Cards, ledger and payouts" || len(got.Spec.Environments) != 1 ||
		got.Spec.ResourceLimits == nil || got.Spec.ResourceLimits.MaxClusters == nil || *got.Spec.ResourceLimits.MaxClusters != 20 {
		t.Errorf("spec after patch: %+v", got.Spec)
	}
	if got.Labels["cost-center"] != "cc-42" || got.Labels["ignored"] != "" {
		t.Errorf("labels after patch: %v", got.Labels)
	}
	if got.Status.Namespace != "payments" {
		t.Errorf("status after patch: %+v", got.Status)
	}

	// bob may not update teams: the server's 403, exit 4.
	b := storeAs(t, env, testenv.Bob)
	old = got
	updated = got.DeepCopy()
	updated.Spec.Description = "bob was here"
	_, err = b.UpdateTeam(ctx, old, updated)
	if !apierrors.IsForbidden(err) {
		t.Errorf("bob updating the team: %v, want Forbidden", err)
	}
}

func TestCreateTeam(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "risk"}, Spec: v1alpha1.TeamSpec{DisplayName: "Risk"}}
	if _, err := storeAs(t, env, testenv.Bob).CreateTeam(ctx, team.DeepCopy()); !apierrors.IsForbidden(err) {
		t.Errorf("bob creating a team: %v, want Forbidden", err)
	}
	s := storeAs(t, env, testenv.Olivia)
	if _, err := s.CreateTeam(ctx, team.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTeam(ctx, "risk")
	if err != nil {
		t.Fatal(err)
	}
	if got.TeamNamespace() != "risk" {
		t.Errorf("namespace of a team without status: %q", got.TeamNamespace())
	}
}

// A team with 2,000 clusters is listed whole, through pages of live.PageSize.
func TestListPaginates(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	const ns, n = "bulk", 2000
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	names := make(chan string)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := env.Client.Create(ctx, cluster(ns, name)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		names <- fmt.Sprintf("c-%04d", i)
	}
	close(names)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	var lists atomic.Int32
	cfg := env.UserConfig("admin")
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tenantclusters") {
				if r.URL.Query().Get("limit") != fmt.Sprint(live.PageSize) {
					t.Errorf("list without limit=%d: %s", live.PageSize, r.URL)
				}
				lists.Add(1)
			}
			return rt.RoundTrip(r)
		})
	}
	s, err := live.NewForConfig(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ListClusters(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("listed %d clusters, want %d", len(got), n)
	}
	for i, c := range got {
		if want := fmt.Sprintf("c-%04d", i); c.Name != want || c.Kind != v1alpha1.KindTenantCluster {
			t.Fatalf("item %d is %s %q, want %q", i, c.Kind, c.Name, want)
		}
	}
	if want := int32(n / live.PageSize); lists.Load() != want {
		t.Errorf("%d list requests, want %d", lists.Load(), want)
	}
}

func TestNoKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err := live.New(live.Options{})
	if !storeerr.IsMissing(err, storeerr.NeedKubeconfig) || strings.Contains(err.Error(), "--") {
		t.Errorf("no kubeconfig: %v, want storeerr.NeedKubeconfig, worded without flags", err)
	}
	_, err = live.New(live.Options{Kubeconfig: filepath.Join(t.TempDir(), "missing")})
	if !errors.Is(err, storeerr.ErrBadInput) {
		t.Errorf("missing --kubeconfig file: %v, want storeerr.ErrBadInput", err)
	}
}

func TestSpecMergePatch(t *testing.T) {
	old := v1alpha1.TeamSpec{DisplayName: "Payments", Description: "a", Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}
	upd := old
	upd.Description = ""
	upd.Environments = []v1alpha1.EnvironmentSpec{{Name: "dev"}}
	b, err := live.SpecMergePatch("42", old, upd)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"42"},"spec":{"description":null,"environments":[{"name":"dev"}]}}`
	if string(b) != want {
		t.Errorf("patch\n got %s\nwant %s", b, want)
	}
	if b, _ := live.SpecMergePatch("42", old, old); b != nil {
		t.Errorf("no change gave a patch: %s", b)
	}
}

func TestWebhookDenialIsExit4(t *testing.T) {
	// What the API server returns when a validating webhook denies with a 422.
	err := apierrors.NewInvalid(v1alpha1.GroupVersion.WithKind("TenantCluster").GroupKind(), "web", nil)
	err.ErrStatus.Message = `admission webhook "vtenantcluster.butler.butlerlabs.dev" denied the request: spec: Forbidden: team "payments" already has 20 cluster(s); team quota limits to 20`
	got := live.APIError(err)
	if !errors.Is(got, storeerr.ErrDenied) || got.Error() != err.ErrStatus.Message {
		t.Errorf("webhook denial: %q, want storeerr.ErrDenied with the server's message", got)
	}
	if !apierrors.IsInvalid(got) {
		t.Errorf("the StatusError is no longer reachable: %v", got)
	}
	nf := apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), "x")
	if live.APIError(nf) != error(nf) {
		t.Errorf("other errors must pass through unchanged")
	}
}

func cluster(ns, name string) *v1alpha1.TenantCluster {
	return &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			Labels:      map[string]string{v1alpha1.LabelTeam: "payments", v1alpha1.LabelEnvironment: "prod"},
			Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: testenv.Bob},
		},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
			ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod", Namespace: "butler-system"},
			Workers: v1alpha1.WorkersSpec{Replicas: 3, MachineTemplate: v1alpha1.MachineTemplate{
				CPU: 4, Memory: resource.MustParse("8Gi"), DiskSize: resource.MustParse("100Gi"),
			}},
		},
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
