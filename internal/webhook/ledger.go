package webhook

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// nsUsage is one namespace's figures: the cache's clusters, the ledger, and the index of
// both (a ledger entry counts in place of the cached cluster of its name).
type nsUsage struct {
	mu      sync.Mutex
	index   *policy.SiblingIndex
	cached  map[string]*v1alpha1.TenantCluster
	pending map[string]pending
}

type pending struct {
	c       *v1alpha1.TenantCluster
	expires time.Time
}

// stripCluster keeps of a TenantCluster what the rules read of the other clusters of a
// namespace (policy.AdmitCluster's counts and sums, policy.ProviderDeleteGuard): 30,000
// clusters then fit in a few megabytes.
func stripCluster(obj any) (any, error) {
	c, ok := obj.(*v1alpha1.TenantCluster)
	if !ok {
		return obj, nil
	}
	return stripped(c), nil
}

func stripped(c *v1alpha1.TenantCluster) *v1alpha1.TenantCluster {
	s := &v1alpha1.TenantCluster{}
	s.Name, s.Namespace, s.UID, s.ResourceVersion = c.Name, c.Namespace, c.UID, c.ResourceVersion
	s.DeletionTimestamp = c.DeletionTimestamp
	if v, ok := c.Labels[v1alpha1.LabelEnvironment]; ok {
		s.Labels = map[string]string{v1alpha1.LabelEnvironment: v}
	}
	for _, k := range []string{v1alpha1.AnnotationOwner, v1alpha1.AnnotationCreatorEmail} {
		if v, ok := c.Annotations[k]; ok {
			if s.Annotations == nil {
				s.Annotations = map[string]string{}
			}
			s.Annotations[k] = v
		}
	}
	s.Spec.TeamRef = c.Spec.TeamRef
	s.Spec.ProviderConfigRef = c.Spec.ProviderConfigRef
	s.Spec.Workers.Replicas = c.Spec.Workers.Replicas
	mt := &c.Spec.Workers.MachineTemplate
	s.Spec.Workers.MachineTemplate.CPU = mt.CPU
	s.Spec.Workers.MachineTemplate.Memory = mt.Memory
	s.Spec.Workers.MachineTemplate.DiskSize = mt.DiskSize
	return s
}

// sameFigures reports whether two reduced clusters count the same in every rule.
func sameFigures(a, b *v1alpha1.TenantCluster) bool {
	return a.Name == b.Name &&
		equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations) &&
		equality.Semantic.DeepEqual(a.Spec, b.Spec)
}

func (r *CachedReader) usage(ns string) *nsUsage {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.ns[ns]
	if u == nil {
		u = &nsUsage{index: policy.NewSiblingIndex(), cached: map[string]*v1alpha1.TenantCluster{}, pending: map[string]pending{}}
		r.ns[ns] = u
	}
	return u
}

// observe applies an informer event to its namespace's figures, retiring the ledger entry
// the cache now shows.
func (r *CachedReader) observe(obj any, deleted bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, deleted = d.Obj, true
	}
	c, ok := obj.(*v1alpha1.TenantCluster)
	if !ok {
		return
	}
	u := r.usage(c.Namespace)
	u.mu.Lock()
	defer u.mu.Unlock()
	if rv, ok := parseRV(c.ResourceVersion); ok {
		for cur := r.observedRV.Load(); rv > cur && !r.observedRV.CompareAndSwap(cur, rv); cur = r.observedRV.Load() {
		}
	}
	if deleted {
		delete(u.cached, c.Name)
	} else {
		u.cached[c.Name] = c
		if p, ok := u.pending[c.Name]; ok && sameFigures(p.c, c) {
			delete(u.pending, c.Name)
		}
	}
	u.reindex(c.Name)
}

// reindex sets the index's entry of name: the ledger's, else the cache's, else none.
func (u *nsUsage) reindex(name string) {
	switch p, ok := u.pending[name]; {
	case ok:
		u.index.Set(p.c)
	case u.cached[name] != nil:
		u.index.Set(u.cached[name])
	default:
		u.index.Delete(name)
	}
}

// expire retires the ledger entries past their time.
func (u *nsUsage) expire(now time.Time) {
	for name, p := range u.pending {
		if now.After(p.expires) {
			delete(u.pending, name)
			u.reindex(name)
		}
	}
}

// DecideClusters runs decide with the namespace's figures (cache plus ledger), alone
// among the reviews of that namespace; when decide admits and reserve is not nil (not a
// dry run), reserve enters the ledger until the cache shows it.
func (r *CachedReader) DecideClusters(namespace string, reserve *v1alpha1.TenantCluster, decide func(*policy.SiblingIndex) bool) error {
	if !r.Synced() {
		return errNotSynced
	}
	u := r.usage(namespace)
	u.mu.Lock()
	defer u.mu.Unlock()
	if g := r.gate.Load(); g != nil && !(*g)() {
		return ErrNotLeader
	}
	now := r.now()
	u.expire(now)
	if !decide(u.index) || reserve == nil {
		return nil
	}
	s := stripped(reserve)
	if c := u.cached[s.Name]; c != nil && sameFigures(c, s) {
		return nil // the cache already shows it so
	}
	u.pending[s.Name] = pending{c: s, expires: now.Add(r.ttl)}
	u.reindex(s.Name)
	return nil
}

// Pending is the number of ledger entries of a namespace (for tests and metrics).
func (r *CachedReader) Pending(namespace string) int {
	u := r.usage(namespace)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.expire(r.now())
	return len(u.pending)
}
