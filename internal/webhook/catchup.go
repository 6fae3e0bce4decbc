package webhook

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func parseRV(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// figuresHeld is every cluster the namespaces' figures hold from the cache.
func (r *CachedReader) figuresHeld() []any {
	r.mu.Lock()
	all := make([]*nsUsage, 0, len(r.ns))
	for _, u := range r.ns {
		all = append(all, u)
	}
	r.mu.Unlock()
	var out []any
	for _, u := range all {
		u.mu.Lock()
		for _, c := range u.cached {
			out = append(out, c)
		}
		u.mu.Unlock()
	}
	return out
}

// CatchUp waits until every cache holds what the API server lists now (the same objects at
// the same resourceVersions), or ctx ends. For a harness switching enforcement on right
// after loading fixtures: in service, the ledger covers what this process admitted, and
// what others wrote a moment ago is seen a moment later, as by Butler's own webhook.
func (r *CachedReader) CatchUp(ctx context.Context) error {
	if !r.WaitForSync(ctx) {
		return ctx.Err()
	}
	type target struct {
		inf      cache.SharedIndexInformer
		resource string
		list     func() runtime.Object
	}
	targets := []target{
		{r.clusters, "tenantclusters", func() runtime.Object { return &v1alpha1.TenantClusterList{} }},
		{r.providers, "providerconfigs", func() runtime.Object { return &v1alpha1.ProviderConfigList{} }},
		{r.policies, "clustercreationpolicies", func() runtime.Object { return &v1alpha1.ClusterCreationPolicyList{} }},
		{r.users, "users", func() runtime.Object { return &v1alpha1.UserList{} }},
		{r.idps, "identityproviders", func() runtime.Object { return &v1alpha1.IdentityProviderList{} }},
	}
	for _, t := range targets {
		if t.inf == nil {
			continue
		}
		l := t.list()
		if err := r.live.butler.Get().Resource(t.resource).Do(ctx).Into(l); err != nil {
			return fmt.Errorf("list %s: %w", t.resource, err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			return err
		}
		want := make(map[string]string, len(items))
		for _, it := range items {
			m, _ := meta.Accessor(it)
			want[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
		}
		listRV, numeric := parseRV(l.(metav1.ListInterface).GetResourceVersion())
		for {
			// Caught up: the cache holds what was listed or, while writes go on, has
			// applied every change up to the list (resourceVersions are etcd's revisions,
			// compared as numbers where they parse). For TenantClusters, what counts is
			// what the event handler has applied to the figures, not only the store.
			var have []any
			last, ok := parseRV(t.inf.LastSyncResourceVersion())
			if t.inf == r.clusters {
				have = r.figuresHeld()
				last, ok = r.observedRV.Load(), true
			} else {
				have = t.inf.GetStore().List()
			}
			if numeric && ok && last >= listRV {
				break
			}
			same := len(have) == len(want)
			for _, o := range have {
				m, _ := meta.Accessor(o)
				if !same || want[m.GetNamespace()+"/"+m.GetName()] != m.GetResourceVersion() {
					same = false
					break
				}
			}
			if same {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the %s cache did not catch up: %w", t.resource, ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nil
}
