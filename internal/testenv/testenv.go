// Package testenv is the test control plane: a real etcd and kube-apiserver, started once
// per test binary with controller-runtime's envtest, with the project's CRDs installed and
// users of different identities, each with a client certificate and a kubeconfig of its
// own.
//
// The binaries are built from source by `make testbin` (hack/testbin.sh) into a cache
// folder outside the work tree; `make test` builds them first. When they are missing,
// tests that need the control plane are skipped with a message naming `make testbin` —
// unless KUBEBUILDER_ASSETS was set explicitly (as `make test` does), in which case a
// missing binary is a failure, so CI never passes by skipping.
//
// Use it from a test binary like this:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
//
//	func TestSomething(t *testing.T) {
//		env := testenv.Start(t) // skips when the binaries are missing
//		cfg := env.UserConfig(testenv.Bob)
//		...
//	}
package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/owncrds"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Versions of the control plane; they name the cache folder and must match
// hack/testbin.sh, hack/k8s-tools/go.mod and hack/etcd-tools/go.mod.
const (
	KubeVersion = "v1.35.4"
	EtcdVersion = "v3.6.16"
)

// Namespaces the harness creates.
const (
	PlatformNamespace = v1alpha1.PlatformNamespace // butler-system
	PaymentsNamespace = "payments"
)

// Identities with credentials of their own. The names are the e-mails the API server
// sees (the CN of each client certificate).
const (
	// Olivia is a platform admin: bound to cluster-admin (and a User object with
	// isPlatformAdmin in the payments example).
	Olivia = "olivia@example.com"
	// Alice is the payments team admin (team access); RBAC: butler-edit in payments.
	Alice = "alice@example.com"
	// Bob and Carol are payments operators; RBAC: butler-edit in payments.
	Bob   = "bob@example.com"
	Carol = "carol@example.com"
	// Dave only reads: butler-view in payments.
	Dave = "dave@example.com"
)

// Users are the identities the harness provisions, in a stable order.
var Users = []string{Olivia, Alice, Bob, Carol, Dave}

// Env is the running control plane.
type Env struct {
	// Config is the envtest admin (system:masters), for setting up and inspecting state.
	Config *rest.Config
	// Client is a controller-runtime client over Config that knows the Butler types.
	Client client.Client
	// Scheme has client-go's types and the Butler types.
	Scheme *runtime.Scheme
	// Dir holds the kubeconfig files.
	Dir string

	env         *envtest.Environment
	configs     map[string]*rest.Config
	kubeconfigs map[string]string
	webhook     *webhookServer // WithWebhook
	// crdGenerations are the CRDs' generations as installed (RestoreInstallation).
	crdGenerations map[string]int64
}

var (
	mu      sync.Mutex
	shared  *Env
	failed  error
	started bool
)

// AssetsDir is where the binaries are: $KUBEBUILDER_ASSETS when set, else the cache
// folder hack/testbin.sh builds into.
func AssetsDir() string {
	if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "butler-test-bin", "kube-"+KubeVersion+"-etcd-"+EtcdVersion)
}

// Missing lists the binaries absent from AssetsDir.
func Missing() []string {
	var out []string
	for _, b := range []string{"kube-apiserver", "etcd", "kubectl"} {
		if fi, err := os.Stat(filepath.Join(AssetsDir(), b)); err != nil || fi.IsDir() {
			out = append(out, b)
		}
	}
	return out
}

// Start returns the shared control plane, starting it on first use (with opts). When the
// binaries are missing it skips t (or fails it, when KUBEBUILDER_ASSETS was set explicitly).
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	mu.Lock()
	defer mu.Unlock()
	if !started {
		started = true
		if missing := Missing(); len(missing) > 0 {
			failed = errMissing{dir: AssetsDir(), missing: missing}
		} else {
			shared, failed = start(o)
		}
	}
	if failed == nil && o.webhook && shared.webhook == nil {
		t.Fatalf("test control plane: started without the webhook; pass testenv.WithWebhook() to every Start of this test binary")
	}
	if failed != nil {
		var m errMissing
		if errors.As(failed, &m) && os.Getenv("KUBEBUILDER_ASSETS") == "" {
			t.Skip(failed.Error())
		}
		t.Fatalf("test control plane: %v", failed)
	}
	return shared
}

type errMissing struct {
	dir     string
	missing []string
}

func (e errMissing) Error() string {
	return fmt.Sprintf("test control plane binaries missing in %s (%s): run `make testbin` to build them", e.dir, strings.Join(e.missing, ", "))
}

// Stop stops the control plane if it was started; Run calls it after the tests.
func Stop() error {
	mu.Lock()
	defer mu.Unlock()
	if shared == nil {
		return nil
	}
	werr := shared.stopWebhook()
	err := shared.env.Stop()
	if err == nil {
		err = werr
	}
	if rerr := os.RemoveAll(shared.Dir); err == nil {
		err = rerr
	}
	shared = nil
	return err
}

// TestingM is *testing.M, or what wraps it (testscript.Main takes one).
type TestingM interface{ Run() int }

// Run runs the tests and then stops the control plane if a test started it.
func Run(m TestingM) int {
	code := m.Run()
	if err := Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the test control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Main wraps m so that Run stops the control plane after the tests: for test binaries
// whose TestMain hands m to something else, such as testscript.Main.
func Main(m TestingM) TestingM { return mainFunc(func() int { return Run(m) }) }

type mainFunc func() int

func (f mainFunc) Run() int { return f() }

func start(o options) (*Env, error) {
	crds, err := loadCRDs()
	if err != nil {
		return nil, err
	}
	timeout := 60 * time.Second
	if v := os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"); v != "" {
		if timeout, err = time.ParseDuration(v); err != nil {
			return nil, fmt.Errorf("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: %w", err)
		}
	}
	existing := false
	te := &envtest.Environment{
		BinaryAssetsDirectory:    AssetsDir(),
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    true,
		UseExistingCluster:       &existing,
		ControlPlaneStartTimeout: timeout,
	}
	if o.webhook {
		te.WebhookInstallOptions = webhookInstallOptions()
	}
	if os.Getenv("BUTLER_BENCH_PPROF") != "" {
		// bench/migrate.sh records the API server's CPU profiles.
		te.ControlPlane.GetAPIServer().Configure().Set("profiling", "true").Set("contention-profiling", "true")
	}
	// controller-runtime prints a stack trace if nothing ever sets its logger; envtest's
	// failures come back as errors anyway.
	logf.SetLogger(logr.Discard())
	cfg, err := te.Start()
	if err != nil {
		_ = te.Stop()
		return nil, err
	}
	e, err := setup(te, cfg)
	if err != nil {
		_ = te.Stop()
		return nil, err
	}
	if o.webhook {
		if err := startWebhook(e); err != nil {
			_ = te.Stop()
			return nil, fmt.Errorf("starting the webhook: %w", err)
		}
	}
	return e, nil
}

// loadCRDs reads the CRDs embedded from config/crd, so the harness finds them whatever
// the test's working directory.
func loadCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return owncrds.All()
}

func setup(te *envtest.Environment, cfg *rest.Config) (*Env, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil { // RestoreInstallation
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "butler-testenv-")
	if err != nil {
		return nil, err
	}
	e := &Env{Config: cfg, Client: c, Scheme: scheme, Dir: dir, env: te,
		configs: map[string]*rest.Config{}, kubeconfigs: map[string]string{}}
	ctx := context.Background()
	for _, obj := range rbac() {
		if err := c.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	for _, u := range Users {
		au, err := te.AddUser(envtest.User{Name: u}, &rest.Config{QPS: 100, Burst: 200})
		if err != nil {
			return nil, fmt.Errorf("adding user %s: %w", u, err)
		}
		kc, err := au.KubeConfig()
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, strings.SplitN(u, "@", 2)[0]+".kubeconfig")
		if err := os.WriteFile(path, kc, 0o600); err != nil {
			return nil, err
		}
		e.configs[u] = au.Config()
		e.kubeconfigs[u] = path
	}
	admin := filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(admin, te.KubeConfig, 0o600); err != nil {
		return nil, err
	}
	e.kubeconfigs["admin"] = admin
	if err := e.saveCRDGenerations(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// rbac is the namespaces, roles and bindings of the identities. The aggregated built-in
// roles (edit, view) are empty on a bare API server (no controller-manager aggregates
// them), so the harness defines its own.
func rbac() []client.Object {
	group := v1alpha1.GroupVersion.Group
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	read := []string{"get", "list", "watch"}
	subjects := func(users ...string) []rbacv1.Subject {
		var out []rbacv1.Subject
		for _, u := range users {
			out = append(out, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u})
		}
		return out
	}
	clusterRole := func(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	}
	roleBinding := func(ns, role string, users ...string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   subjects(users...),
		}
	}
	ordinary := []string{Alice, Bob, Carol, Dave}
	return []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: PlatformNamespace}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: PaymentsNamespace}},
		// Olivia runs the platform.
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "butler-platform-admin"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   subjects(Olivia),
		},
		// Everyone reads teams and ClusterCreationPolicies (cluster-scoped; the console shows
		// every user the policies that shape their choices), not Users or
		// IdentityProviders: for them the platform-admin check falls back to a
		// SelfSubjectAccessReview.
		clusterRole("butler-team-reader", rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{"teams", "clustercreationpolicies"}, Verbs: read}),
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "butler-team-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "butler-team-reader"},
			Subjects:   subjects(ordinary...),
		},
		clusterRole("butler-edit",
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{"tenantclusters", "tenantaddons"}, Verbs: all},
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{"providerconfigs"}, Verbs: read}),
		clusterRole("butler-view",
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{"tenantclusters", "tenantaddons", "providerconfigs"}, Verbs: read}),
		clusterRole("butler-providerconfig-reader",
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{"providerconfigs"}, Verbs: read}),
		roleBinding(PaymentsNamespace, "butler-edit", Alice, Bob, Carol),
		roleBinding(PaymentsNamespace, "butler-view", Dave),
		// Platform ProviderConfigs are visible to every team.
		roleBinding(PlatformNamespace, "butler-providerconfig-reader", ordinary...),
	}
}

// UserConfig is a REST config with the credentials of one of Users ("admin" for the
// envtest admin).
func (e *Env) UserConfig(user string) *rest.Config {
	if user == "admin" {
		return rest.CopyConfig(e.Config)
	}
	c, ok := e.configs[user]
	if !ok {
		panic("testenv: no user " + user)
	}
	return rest.CopyConfig(c)
}

// Kubeconfig is the path of a kubeconfig file with the credentials of one of Users
// ("admin" for the envtest admin).
func (e *Env) Kubeconfig(user string) string {
	p, ok := e.kubeconfigs[user]
	if !ok {
		panic("testenv: no user " + user)
	}
	return p
}

// Reset deletes every Butler object and every Steward TenantControlPlane in every
// namespace. Nothing on the test control plane adds finalizers, so the objects are gone
// when it returns. Namespaces stay: a bare API server has no controller to finish deleting
// one.
func (e *Env) Reset(ctx context.Context) error {
	var nsList corev1.NamespaceList
	if err := e.Client.List(ctx, &nsList); err != nil {
		return err
	}
	kinds := []struct {
		kind       string
		namespaced bool
	}{
		{"TenantAddon", true}, {"TenantCluster", true}, {"ProviderConfig", true},
		{"Team", false}, {"User", false}, {"IdentityProvider", false}, {"ClusterCreationPolicy", false},
	}
	for _, k := range kinds {
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(k.kind))
		if !k.namespaced {
			if err := e.Client.DeleteAllOf(ctx, obj); err != nil {
				return fmt.Errorf("deleting %ss: %w", k.kind, err)
			}
			continue
		}
		for _, ns := range nsList.Items {
			if err := e.Client.DeleteAllOf(ctx, obj, client.InNamespace(ns.Name)); err != nil {
				return fmt.Errorf("deleting %ss in %s: %w", k.kind, ns.Name, err)
			}
		}
	}
	if err := e.resetTestRBAC(ctx); err != nil {
		return err
	}
	// Steward's TenantControlPlanes, which scripts create in tenant namespaces of their own.
	tcp := &unstructured.Unstructured{}
	tcp.SetGroupVersionKind(stewardv1alpha1.GroupVersion.WithKind("TenantControlPlane"))
	for _, ns := range nsList.Items {
		if err := e.Client.DeleteAllOf(ctx, tcp, client.InNamespace(ns.Name)); err != nil {
			return fmt.Errorf("deleting TenantControlPlanes in %s: %w", ns.Name, err)
		}
	}
	return nil
}

// resetTestRBAC deletes the roles and bindings scripts grant, named test-*: a script that
// grants alice or bob more must not change what the next script's server allows.
func (e *Env) resetTestRBAC(ctx context.Context) error {
	var crbs rbacv1.ClusterRoleBindingList
	var crs rbacv1.ClusterRoleList
	var rbs rbacv1.RoleBindingList
	var rs rbacv1.RoleList
	for _, l := range []client.ObjectList{&crbs, &crs, &rbs, &rs} {
		if err := e.Client.List(ctx, l); err != nil {
			return err
		}
	}
	var objs []client.Object
	for i := range crbs.Items {
		objs = append(objs, &crbs.Items[i])
	}
	for i := range crs.Items {
		objs = append(objs, &crs.Items[i])
	}
	for i := range rbs.Items {
		objs = append(objs, &rbs.Items[i])
	}
	for i := range rs.Items {
		objs = append(objs, &rs.Items[i])
	}
	for _, o := range objs {
		if !strings.HasPrefix(o.GetName(), "test-") {
			continue
		}
		if err := e.Client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s: %w", o.GetName(), err)
		}
	}
	return nil
}

// ResetToExample empties the control plane (Reset) and loads the worked example,
// examples/payments, as the admin: the starting point of most live tests.
func (e *Env) ResetToExample(ctx context.Context) error {
	if err := e.Reset(ctx); err != nil {
		return err
	}
	return e.LoadManifests(ctx, ExampleDir())
}

// ExampleDir is the worked example's folder, examples/payments, found from this source
// file, so it is right whatever the test's working directory.
func ExampleDir() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "payments")
}

// LoadManifests creates the objects of every YAML file under path (a file or a directory,
// read recursively, in lexical order), as the admin. A document's status is written
// through the status subresource after the create, so objects look as a controller left
// them (a Team's status.namespace, for example).
func (e *Env) LoadManifests(ctx context.Context, path string) error {
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := fileio.ReadFile(f, manifest.DefaultMaxFileBytes)
		if err != nil {
			return err
		}
		if err := e.CreateYAML(ctx, b); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// CreateYAML creates the objects of a (multi-document) YAML stream, as the admin.
func (e *Env) CreateYAML(ctx context.Context, data []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return err
		}
		if len(m) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{Object: m}
		status, hasStatus := m["status"]
		if err := e.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		if hasStatus {
			obj.Object["status"] = status
			if err := e.Client.Status().Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("writing status of %s %s: %w", obj.GetKind(), obj.GetName(), err)
			}
		}
	}
}
