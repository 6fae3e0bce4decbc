// Package live is the store over a Butler management cluster, through client-go.
//
// Butler objects go through a REST client built on the project's own scheme (the typed
// v1alpha1 structs), not the dynamic client: objects decode straight into the types every
// command and the policy package already use, with no unstructured round trip, and the
// offline and live stores hand commands the same values. Identity comes from the API
// server (SelfSubjectReview), never from what the user typed.
//
// Errors from the server are returned as apimachinery StatusErrors (wrapped at most with
// %w), as the offline store's are, so the command layer maps both to the same exit codes;
// what is not an API status is an error of internal/storeerr.
package live

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/butlerdotdev/butler-toolkit/internal/apipager"
	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/butlerlogin"
	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Client rate limits. client-go's defaults (5 requests per second, bursts of 10) are sized
// for controllers sharing a server; a CLI doing bulk work (a team with thousands of
// clusters, a migration touching each of them) needs more, and it ends when its work is done.
const (
	DefaultQPS   = 50
	DefaultBurst = 100
)

// PageSize is the number of objects asked for per list request (butlerclient.PageSize).
const PageSize = butlerclient.PageSize

// Options are the kube flags the store is built from.
type Options struct {
	Kubeconfig string
	Context    string
	As         string
	AsGroups   []string
	// RequestTimeout bounds each request, as kubectl's --request-timeout reads it ("30s",
	// "2m", a number of seconds; "0" for no limit); "" is
	// butlerclient.DefaultRequestTimeout.
	RequestTimeout string
	// UserAgent is sent with every request ("" for client-go's default).
	UserAgent string
	// DryRun is --dry-run: "" writes, DryRunClient sends no write, DryRunServer sends
	// each with dryRun=All.
	DryRun string
}

// Store talks to a Butler management cluster.
type Store struct {
	config *rest.Config
	butler *butlerclient.Client
	authn  rest.Interface
	authz  rest.Interface
	core   rest.Interface

	mu       sync.Mutex
	identity *policy.Identity

	// Where the credentials came from (CredentialSource), and butler-cli's login when
	// they came from there.
	source string
	login  *butlerlogin.Login

	// The platform-admin answer for the identity it was asked about last: commands that
	// check a change before asking for confirmation and again when writing it (or once per
	// retry) ask the server once.
	adminMu sync.Mutex
	admin   *adminAnswer

	// bulk is the client of ApplyClusters, without client-side rate limit (unthrottled).
	bulkOnce sync.Once
	bulk     *butlerclient.Client
	bulkErr  error
}

// New loads the kubeconfig through the standard loading rules (--kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, else the pod's service account; --context; --as and
// --as-group impersonation; --request-timeout, else butlerclient.DefaultRequestTimeout),
// and builds the clients.
//
// These are the loading rules and overrides cli-runtime's ConfigFlags builds, set up with
// clientcmd directly: ConfigFlags' package also links kubectl's resource builder,
// printers and kustomize into the binaries, none of which the tools use.
func New(o Options) (*Store, error) {
	if len(o.AsGroups) > 0 && o.As == "" {
		return nil, storeerr.Missing(storeerr.NeedImpersonatedUser, "impersonating groups needs a user: the API server impersonates groups only together with a user")
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{
		CurrentContext: o.Context,
		AuthInfo: clientcmdapi.AuthInfo{
			Impersonate:       o.As,
			ImpersonateGroups: o.AsGroups,
		},
		Timeout: o.RequestTimeout,
	}
	if o.RequestTimeout == "" {
		overrides.Timeout = butlerclient.DefaultRequestTimeout.String()
	}
	var loader clientcmd.ClientConfig = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	var login *butlerlogin.Login
	if o.Kubeconfig == "" {
		raw, err := loader.RawConfig()
		if err != nil {
			return nil, storeerr.BadInput(fmt.Errorf("loading kubeconfig: %w", err))
		}
		if len(raw.Clusters) == 0 {
			// No kubeconfig: butler-cli's login, else the pod's service account.
			if login, loader, err = fromLogin(overrides); err != nil {
				return nil, err
			}
			if login == nil && !inCluster() {
				return nil, storeerr.Missing(storeerr.NeedKubeconfig, "no kubeconfig found")
			}
		}
	}
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, storeerr.BadInput(fmt.Errorf("loading kubeconfig: %w", err))
	}
	s, err := NewForConfig(cfg, o.UserAgent)
	if err != nil {
		return nil, err
	}
	if err := s.setDryRun(o.DryRun); err != nil {
		return nil, err
	}
	s.login, s.source = login, source(login, rules, loader, o)
	return s, nil
}

// NewForConfig builds the store on a REST config (tests use the harness's configs), with
// base.Timeout as each request's deadline (butlerclient.Configure).
func NewForConfig(base *rest.Config, userAgent string) (*Store, error) {
	cfg := butlerclient.Configure(base, userAgent)
	cfg.QPS = DefaultQPS
	cfg.Burst = DefaultBurst

	butler, err := butlerclient.New(cfg)
	if err != nil {
		return nil, err
	}
	core, err := restFor(cfg, corev1.SchemeGroupVersion, "/api", corev1.AddToScheme)
	if err != nil {
		return nil, err
	}
	authn, err := restFor(cfg, authenticationv1.SchemeGroupVersion, "/apis", authenticationv1.AddToScheme)
	if err != nil {
		return nil, err
	}
	authz, err := restFor(cfg, authorizationv1.SchemeGroupVersion, "/apis", authorizationv1.AddToScheme)
	if err != nil {
		return nil, err
	}
	return &Store{
		config: cfg,
		butler: butler,
		authn:  authn,
		authz:  authz,
		core:   core,
	}, nil
}

// setDryRun makes the writes of Butler's objects and Secrets dry runs (mode DryRunClient
// or DryRunServer, see dryRun; "" leaves them); the reviews that say who asks and what
// they may do are sent as they are.
func (s *Store) setDryRun(mode string) error {
	if mode == "" {
		return nil
	}
	writes := rest.CopyConfig(s.config)
	dryRun(writes, mode)
	butler, err := butlerclient.New(writes)
	if err != nil {
		return err
	}
	core, err := restFor(writes, corev1.SchemeGroupVersion, "/api", corev1.AddToScheme)
	if err != nil {
		return err
	}
	s.butler, s.core = butler, core
	return nil
}

// Kind implements store.Store.
func (s *Store) Kind() store.Kind { return store.Live }

// Server implements store.Store: a live store is its own server.
func (s *Store) Server() (store.Server, error) { return s, nil }

// Connection implements store.Server: the config every request goes out with.
func (s *Store) Connection() *rest.Config { return rest.CopyConfig(s.config) }

// Host is the API server the store talks to, ready to print: its URL's credentials
// redacted (redact.URL). Messages and results name the server by it.
func (s *Store) Host() string { return redact.URL(s.config.Host) }

// ListTeams implements store.Store.
func (s *Store) ListTeams(ctx context.Context) ([]v1alpha1.Team, error) {
	items, err := listAll(ctx, s, "", "teams", func(l *v1alpha1.TeamList) []v1alpha1.Team { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindTeam)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items, err
}

// GetTeam implements store.Store.
func (s *Store) GetTeam(ctx context.Context, name string) (*v1alpha1.Team, error) {
	t := &v1alpha1.Team{}
	if err := s.get(ctx, "", "teams", name, t); err != nil {
		return nil, err
	}
	clean(&t.TypeMeta, &t.ObjectMeta, v1alpha1.KindTeam)
	return t, nil
}

// ListClusters implements store.Store.
func (s *Store) ListClusters(ctx context.Context, namespace string) ([]v1alpha1.TenantCluster, error) {
	items, err := listAll(ctx, s, namespace, "tenantclusters", func(l *v1alpha1.TenantClusterList) []v1alpha1.TenantCluster { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindTenantCluster)
	}
	sort.Slice(items, func(i, j int) bool { return less(&items[i].ObjectMeta, &items[j].ObjectMeta) })
	return items, err
}

// ListClusterPages implements store.Store: the sorted list as one page (a command that
// pages a server uses Server().PageClusters, whose pages the server cuts).
func (s *Store) ListClusterPages(ctx context.Context, namespace string, fn func([]v1alpha1.TenantCluster) error) error {
	items, err := s.ListClusters(ctx, namespace)
	if err != nil {
		return err
	}
	return fn(items)
}

// GetCluster implements store.Store.
func (s *Store) GetCluster(ctx context.Context, namespace, name string) (*v1alpha1.TenantCluster, error) {
	c := &v1alpha1.TenantCluster{}
	if err := s.get(ctx, namespace, "tenantclusters", name, c); err != nil {
		return nil, err
	}
	clean(&c.TypeMeta, &c.ObjectMeta, v1alpha1.KindTenantCluster)
	return c, nil
}

// ListProviderConfigs implements store.Store.
func (s *Store) ListProviderConfigs(ctx context.Context, namespace string) ([]v1alpha1.ProviderConfig, error) {
	items, err := listAll(ctx, s, namespace, "providerconfigs", func(l *v1alpha1.ProviderConfigList) []v1alpha1.ProviderConfig { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindProviderConfig)
	}
	sort.Slice(items, func(i, j int) bool { return less(&items[i].ObjectMeta, &items[j].ObjectMeta) })
	return items, err
}

// GetProviderConfig implements store.Store.
func (s *Store) GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error) {
	p := &v1alpha1.ProviderConfig{}
	if err := s.get(ctx, namespace, "providerconfigs", name, p); err != nil {
		return nil, err
	}
	clean(&p.TypeMeta, &p.ObjectMeta, v1alpha1.KindProviderConfig)
	return p, nil
}

// ListUsers implements store.Store.
func (s *Store) ListUsers(ctx context.Context) ([]v1alpha1.User, error) {
	items, err := listAll(ctx, s, "", "users", func(l *v1alpha1.UserList) []v1alpha1.User { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindUser)
	}
	return items, err
}

// ListIdentityProviders implements store.Store.
func (s *Store) ListIdentityProviders(ctx context.Context) ([]v1alpha1.IdentityProvider, error) {
	items, err := listAll(ctx, s, "", "identityproviders", func(l *v1alpha1.IdentityProviderList) []v1alpha1.IdentityProvider { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindIdentityProvider)
	}
	return items, err
}

func (s *Store) get(ctx context.Context, namespace, resource, name string, into runtime.Object) error {
	return s.butler.Get().NamespaceIfScoped(namespace, namespace != "").Resource(resource).Name(name).Do(ctx).Into(into)
}

// listAll pages through a resource of the Butler group.
func listAll[T any, L any, PL apipager.List[L]](ctx context.Context, s *Store, namespace, resource string, items func(PL) []T) ([]T, error) {
	return butlerclient.List(ctx, s.butler, namespace, resource, items)
}

// clean makes a server object look like one read from a manifest: its kind set (the
// decoder clears it on single objects) and no managedFields, which kubectl hides too.
func clean(tm *metav1.TypeMeta, om *metav1.ObjectMeta, kind string) {
	tm.APIVersion = v1alpha1.APIVersion
	tm.Kind = kind
	om.ManagedFields = nil
}

func less(a, b *metav1.ObjectMeta) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// apiError keeps the server's error as it is, except that a denial by an admission webhook
// or a ValidatingAdmissionPolicy is a refusal whatever status code it came with (a webhook
// may answer 400 or 422): it is marked storeerr.ErrDenied, with the server's message.
func apiError(err error) error {
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || apierrors.IsForbidden(err) {
		return err
	}
	msg := status.Status().Message
	if (strings.Contains(msg, "admission webhook ") && strings.Contains(msg, " denied the request")) ||
		(strings.Contains(msg, "ValidatingAdmissionPolicy ") && strings.Contains(msg, " denied request")) {
		return storeerr.Denied(err)
	}
	return err
}

// inCluster reports whether the process runs in a pod, where client-go uses the pod's
// service account when there is no kubeconfig.
func inCluster() bool {
	_, err := rest.InClusterConfig()
	return err == nil
}

var _ store.Store = (*Store)(nil)

func restFor(base *rest.Config, gv schema.GroupVersion, apiPath string, add func(*runtime.Scheme) error) (rest.Interface, error) {
	scheme := runtime.NewScheme()
	if err := add(scheme); err != nil {
		return nil, err
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	c := rest.CopyConfig(base)
	c.GroupVersion = &gv
	c.APIPath = apiPath
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	return rest.RESTClientFor(c)
}
