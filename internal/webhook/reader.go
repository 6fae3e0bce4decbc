package webhook

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/apipager"
	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Reader is what the handlers read: NewReader reads everything fresh from the API server
// (each review lists its namespace's clusters); CachedReader, what the server runs, reads
// from informer caches and keeps each namespace's figures and a ledger of its own
// admissions, so a cap counts the clusters created a moment ago. Errors are the API
// server's StatusErrors, so a handler can tell NotFound from a failure.
type Reader interface {
	GetTeam(ctx context.Context, name string) (*v1alpha1.Team, error)
	// ListClusters lists the TenantClusters of a namespace, "" for every namespace.
	ListClusters(ctx context.Context, namespace string) ([]v1alpha1.TenantCluster, error)
	GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error)
	ListUsers(ctx context.Context) ([]v1alpha1.User, error)
	ListIdentityProviders(ctx context.Context) ([]v1alpha1.IdentityProvider, error)
	// ListClusterCreationPolicies lists every ClusterCreationPolicy; none when the API
	// does not serve them (their CRD is not installed).
	ListClusterCreationPolicies(ctx context.Context) ([]v1alpha1.ClusterCreationPolicy, error)
	// CanUpdateTeams asks the API server (SubjectAccessReview) whether the request's user
	// may update teams.butler.butlerlabs.dev.
	CanUpdateTeams(ctx context.Context, user User) (bool, error)
}

// User is the requesting identity of an admission request, as the API server sent it.
type User struct {
	Username string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

func (u User) identity() policy.Identity {
	return policy.Identity{Username: u.Username, Groups: u.Groups}
}

// ClientQPS turns off client-go's client-side rate limiter for the server's own reads
// (a negative QPS builds no limiter). Every read answers an admission review that the API
// server has already let through its own flow control (API Priority and Fairness), and a
// limiter here only queues reviews behind each other: at the 200 per second this once
// was, every TenantCluster write in the cluster, a migration's included, waited its turn.
const (
	ClientQPS   = -1
	ClientBurst = 0
)

// NewReader reads through the API server with the credentials of cfg (the webhook's own:
// its ServiceAccount in a cluster), decoding into the project's types with the Butler
// client the CLI uses (butlerclient). Each review bounds its reads with its own deadline
// (the handler's), so no request timeout is added here.
func NewReader(cfg *rest.Config) (Reader, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = ClientQPS, ClientBurst
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = UserAgent()
	}
	butler, err := butlerclient.New(cfg)
	if err != nil {
		return nil, err
	}
	authz, err := authorizationclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &apiReader{butler: butler, authz: authz}, nil
}

// UserAgent is what the webhook's reads send: butleradm's, marked as the webhook's so that
// audit logs tell it from the CLI.
func UserAgent() string { return butlerclient.UserAgent("butleradm") + " (webhook)" }

type apiReader struct {
	butler *butlerclient.Client
	authz  authorizationclient.AuthorizationV1Interface
}

func (r *apiReader) GetTeam(ctx context.Context, name string) (*v1alpha1.Team, error) {
	t := &v1alpha1.Team{}
	return t, r.butler.Get().Resource("teams").Name(name).Do(ctx).Into(t)
}

func (r *apiReader) GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error) {
	pc := &v1alpha1.ProviderConfig{}
	return pc, r.butler.Get().Namespace(namespace).Resource("providerconfigs").Name(name).Do(ctx).Into(pc)
}

func (r *apiReader) ListClusters(ctx context.Context, namespace string) ([]v1alpha1.TenantCluster, error) {
	return listAll(ctx, r, namespace, "tenantclusters", func(l *v1alpha1.TenantClusterList) []v1alpha1.TenantCluster { return l.Items })
}

func (r *apiReader) ListUsers(ctx context.Context) ([]v1alpha1.User, error) {
	return listAll(ctx, r, "", "users", func(l *v1alpha1.UserList) []v1alpha1.User { return l.Items })
}

func (r *apiReader) ListIdentityProviders(ctx context.Context) ([]v1alpha1.IdentityProvider, error) {
	return listAll(ctx, r, "", "identityproviders", func(l *v1alpha1.IdentityProviderList) []v1alpha1.IdentityProvider { return l.Items })
}

func (r *apiReader) CanUpdateTeams(ctx context.Context, u User) (bool, error) {
	extra := make(map[string]authorizationv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = v
	}
	sar, err := r.authz.SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   u.Username,
			UID:    u.UID,
			Groups: u.Groups,
			Extra:  extra,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group:    v1alpha1.GroupVersion.Group,
				Resource: "teams",
				Verb:     "update",
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return sar.Status.Allowed, nil
}

// listAll pages through a resource of the Butler group.
func listAll[T any, L any, PL apipager.List[L]](ctx context.Context, r *apiReader, namespace, resource string, items func(PL) []T) ([]T, error) {
	return butlerclient.List(ctx, r.butler, namespace, resource, items)
}
