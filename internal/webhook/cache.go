package webhook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// DefaultLedgerTTL bounds how long a cluster this process admitted counts before its cache
// has seen it: longer than the API server's longest webhook call (30 s) and its write, so an
// admitted create is either in the cache or failed by then.
const DefaultLedgerTTL = 45 * time.Second

// CachedReader answers from informer caches (TenantClusters reduced to what the rules
// read, ProviderConfigs, ClusterCreationPolicies, Users, IdentityProviders) and keeps, per
// namespace, the figures the caps compare (policy.SiblingIndex), so a review costs the same
// at 10 clusters and at 30,000. The Team is still read fresh from the API server, as
// Butler's webhook reads it (a lowered cap applies at once), and SubjectAccessReviews are
// still asked.
//
// Exactness: the caches lag the API server, and two reviews at the same moment would see
// the same count. So the reviews of one namespace are decided one at a time
// (DecideClusters), against the cache plus a ledger of what this process admitted and its
// cache has not shown yet: an entry is retired when the cache shows the cluster with the
// figures admitted, or after the ledger's TTL.
type CachedReader struct {
	live  *apiReader
	teams *teamReads
	cfg   *rest.Config
	ttl   time.Duration
	now   func() time.Time

	// Set by Run once discovery has answered; started is closed then.
	clusters, providers, policies, users, idps cache.SharedIndexInformer
	synced                                     []cache.InformerSynced
	started                                    chan struct{}
	running                                    atomic.Bool

	mu sync.Mutex
	ns map[string]*nsUsage

	clock ledgerClock   // retires reservations past their time (ledger_clock.go)
	seq   atomic.Uint64 // numbers the reservations counted beside the cache's

	gate       atomic.Pointer[func() bool]
	observedRV atomic.Uint64 // the newest resourceVersion observe has applied
}

// DecideOnlyWhen makes DecideClusters refuse (ErrNotLeader) unless leading holds, checked
// as each decision is made (Election.Leading).
func (r *CachedReader) DecideOnlyWhen(leading func() bool) { r.gate.Store(&leading) }

// NewCachedReader reads from cfg's API server (the webhook's credentials); Run discovers
// the kinds served and starts the informers. The ClusterCreationPolicy and IdentityProvider informers are started
// only when the API serves those kinds (their CRDs are optional), so a cluster without
// them still syncs; installing one later needs a restart.
func NewCachedReader(cfg *rest.Config, ttl time.Duration) (*CachedReader, error) {
	r, err := NewReader(cfg)
	if err != nil {
		return nil, err
	}
	live := r.(*apiReader)
	if ttl <= 0 {
		ttl = DefaultLedgerTTL
	}
	cr := &CachedReader{live: live, teams: newTeamReads(live.GetTeam), ttl: ttl, now: time.Now, ns: map[string]*nsUsage{}, started: make(chan struct{})}

	cr.cfg = cfg
	return cr, nil
}

// start discovers which kinds the API serves and builds the informers.
func (cr *CachedReader) start() error {
	cfg, live := cr.cfg, cr.live
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	served := map[string]bool{}
	rl, err := dc.ServerResourcesForGroupVersion(v1alpha1.GroupVersion.String())
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("discovering %s: %w", v1alpha1.GroupVersion, err)
	}
	if rl != nil {
		for _, res := range rl.APIResources {
			served[res.Name] = true
		}
	}
	for _, need := range []string{"tenantclusters", "providerconfigs", "teams"} {
		if !served[need] {
			return fmt.Errorf("the API server does not serve %s.%s: install Butler's CRDs first", need, v1alpha1.GroupVersion.Group)
		}
	}
	inf := func(resource string, obj runtime.Object, newList func() runtime.Object) cache.SharedIndexInformer {
		i := cache.NewSharedIndexInformerWithOptions(listWatch(live.butler, resource, newList), obj,
			cache.SharedIndexInformerOptions{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
		cr.synced = append(cr.synced, i.HasSynced)
		return i
	}
	cr.clusters = cache.NewSharedIndexInformerWithOptions(clusterListWatch(live.butler), &v1alpha1.TenantCluster{},
		cache.SharedIndexInformerOptions{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	cr.synced = append(cr.synced, cr.clusters.HasSynced)
	if err := cr.clusters.SetTransform(stripCluster); err != nil {
		return err
	}
	if _, err := cr.clusters.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { cr.observe(obj, false) },
		UpdateFunc: func(_, obj any) { cr.observe(obj, false) },
		DeleteFunc: func(obj any) { cr.observe(obj, true) },
	}); err != nil {
		return err
	}
	cr.providers = inf("providerconfigs", &v1alpha1.ProviderConfig{}, func() runtime.Object { return &v1alpha1.ProviderConfigList{} })
	if served["clustercreationpolicies"] {
		cr.policies = inf("clustercreationpolicies", &v1alpha1.ClusterCreationPolicy{}, func() runtime.Object { return &v1alpha1.ClusterCreationPolicyList{} })
	}
	if served["users"] {
		cr.users = inf("users", &v1alpha1.User{}, func() runtime.Object { return &v1alpha1.UserList{} })
	}
	if served["identityproviders"] {
		cr.idps = inf("identityproviders", &v1alpha1.IdentityProvider{}, func() runtime.Object { return &v1alpha1.IdentityProviderList{} })
	}
	return nil
}

func listWatch(c *butlerclient.Client, resource string, newList func() runtime.Object) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			l := newList()
			return l, c.Get().Resource(resource).VersionedParams(&o, c.Params).Do(ctx).Into(l)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch = true
			return c.Get().Resource(resource).VersionedParams(&o, c.Params).Watch(ctx)
		},
	}
}

// clusterListWatch lists TenantClusters a page at a time, reducing each page's clusters
// (stripped) before the next is read: the whole list is never held in full, so 30,000
// clusters cost their reduced size, not the size of their manifests. The list is a
// consistent read (no resourceVersion), newer than any the informer asks for.
func clusterListWatch(c *butlerclient.Client) *cache.ListWatch {
	lw := listWatch(c, "tenantclusters", nil)
	lw.ListWithContextFunc = func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		o.ResourceVersion, o.ResourceVersionMatch, o.Limit, o.Continue = "", "", butlerclient.PageSize, ""
		out := &v1alpha1.TenantClusterList{}
		for {
			page := &v1alpha1.TenantClusterList{}
			if err := c.Get().Resource("tenantclusters").VersionedParams(&o, c.Params).Do(ctx).Into(page); err != nil {
				return nil, err
			}
			if out.ResourceVersion == "" {
				out.ResourceVersion = page.ResourceVersion
			}
			for i := range page.Items {
				out.Items = append(out.Items, *stripped(&page.Items[i]))
			}
			if page.Continue == "" {
				return out, nil
			}
			o.Continue = page.Continue
		}
	}
	return lw
}

// Run discovers the kinds served (again every few seconds while the API server does not
// answer or lacks Butler's CRDs) and runs the informers until ctx ends. It returns at once.
func (r *CachedReader) Run(ctx context.Context) {
	if !r.running.CompareAndSwap(false, true) {
		return
	}
	go func() {
		backoff := 500 * time.Millisecond
		for {
			err := r.start()
			if err == nil {
				break
			}
			r.synced = nil
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 10*time.Second)
		}
		go r.runClock(ctx)
		for _, i := range []cache.SharedIndexInformer{r.clusters, r.providers, r.policies, r.users, r.idps} {
			if i != nil {
				go i.RunWithContext(ctx)
			}
		}
		close(r.started)
	}()
}

// Synced reports whether every cache has its first full list.
func (r *CachedReader) Synced() bool {
	select {
	case <-r.started:
	default:
		return false
	}
	for _, s := range r.synced {
		if !s() {
			return false
		}
	}
	return true
}

// WaitForSync waits until the caches have synced or ctx ends.
func (r *CachedReader) WaitForSync(ctx context.Context) bool {
	select {
	case <-r.started:
	case <-ctx.Done():
		return false
	}
	return cache.WaitForCacheSync(ctx.Done(), r.synced...)
}

// errNotSynced fails a review closed while the caches are filling.
var errNotSynced = errors.New("the webhook's caches have not synced yet")

// GetTeam reads the Team fresh from the API server, sharing the read with the reviews
// that asked for the same Team at the same time (teamReads).
func (r *CachedReader) GetTeam(ctx context.Context, name string) (*v1alpha1.Team, error) {
	return r.teams.Get(ctx, name)
}

func (r *CachedReader) CanUpdateTeams(ctx context.Context, u User) (bool, error) {
	return r.live.CanUpdateTeams(ctx, u)
}

func (r *CachedReader) GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error) {
	if !r.Synced() {
		return nil, errNotSynced
	}
	obj, ok, err := r.providers.GetStore().GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Not in the cache: perhaps created a moment ago. A miss is rare (a cluster names
		// a ProviderConfig that exists), so it is asked fresh rather than refused.
		return r.live.GetProviderConfig(ctx, namespace, name)
	}
	return obj.(*v1alpha1.ProviderConfig).DeepCopy(), nil
}

// ListClusters lists the reduced clusters of a namespace ("" for all) from the cache.
func (r *CachedReader) ListClusters(_ context.Context, namespace string) ([]v1alpha1.TenantCluster, error) {
	if !r.Synced() {
		return nil, errNotSynced
	}
	var objs []any
	if namespace == "" {
		objs = r.clusters.GetStore().List()
	} else {
		var err error
		if objs, err = r.clusters.GetIndexer().ByIndex(cache.NamespaceIndex, namespace); err != nil {
			return nil, err
		}
	}
	out := make([]v1alpha1.TenantCluster, 0, len(objs))
	for _, o := range objs {
		out = append(out, *o.(*v1alpha1.TenantCluster))
	}
	// In the API server's order (namespace, then name), so a refusal naming one of them
	// names the one a fresh list would.
	slices.SortFunc(out, func(a, b v1alpha1.TenantCluster) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out, nil
}

func listCached[T any](r *CachedReader, i cache.SharedIndexInformer) ([]T, error) {
	if !r.Synced() {
		return nil, errNotSynced
	}
	if i == nil {
		return nil, nil // not served
	}
	objs := i.GetStore().List()
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		out = append(out, *o.(*T))
	}
	return out, nil
}

func (r *CachedReader) ListUsers(context.Context) ([]v1alpha1.User, error) {
	return listCached[v1alpha1.User](r, r.users)
}

func (r *CachedReader) ListIdentityProviders(context.Context) ([]v1alpha1.IdentityProvider, error) {
	return listCached[v1alpha1.IdentityProvider](r, r.idps)
}

func (r *CachedReader) ListClusterCreationPolicies(context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	return listCached[v1alpha1.ClusterCreationPolicy](r, r.policies)
}
