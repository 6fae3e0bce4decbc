package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/cache"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// nsUsage is one namespace's figures: the cache's clusters, the ledger's reservations, and
// the index of both.
//
// A reservation never takes away from what the cache holds: an update that raises every
// figure of the cluster the cache holds under its name and uid (a scale up) counts in its
// place (over); any other (every create, an update that lowers or moves a figure, one of a
// cluster the cache does not hold as such) counts beside it (beside), under an index key
// no cluster's name can be. So a create that names an existing cluster, refused by the
// API server later, cannot make that cluster count for less.
type nsUsage struct {
	mu     sync.Mutex
	key    string // its key in CachedReader.ns
	dead   bool   // dropped from CachedReader.ns: look it up again
	index  *policy.SiblingIndex
	cached map[string]*v1alpha1.TenantCluster
	over   map[string]*pending            // name -> reservation counted in place of the cache's
	beside map[string]map[string]*pending // name -> index key -> reservation counted besides
}

// pending is a reservation: the figures it counts (figures), no more.
type pending struct {
	name    string // the cluster's name (bounded)
	key     string // the index key: name (over), name + "\x00" + a sequence (beside)
	uid     string // the object's uid (bounded); "" when the review had none
	was     string // the uid the cache held under the name when reserved
	create  bool
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

// Bounds of what the ledger keeps of a review's strings: longer ones cannot come from the
// API server (a name is at most 253 bytes, a label value and a namespace 63, a uid is 36),
// and are kept as their digest, so a review sent straight to the webhook costs the ledger
// no more than one from the API server.
const (
	maxNameLen  = 253
	maxLabelLen = 63
	maxUIDLen   = 64
)

// bounded is s (a copy, holding nothing else alive) when no longer than n bytes, else its
// digest.
func bounded(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	sum := sha256.Sum256([]byte(s))
	return "SHA256:" + strings.ToUpper(hex.EncodeToString(sum[:]))
}

// figures is what the ledger keeps of a cluster: what policy.SiblingIndex counts of it (its
// name, environment, owner, worker replicas, CPU, memory and disk) and nothing else, every
// string bounded, so a reservation costs a few hundred bytes whatever the review carried.
// An owner counts only within an environment, and is kept as policy.OwnerKey, which the
// index groups as it groups the owner.
func figures(c *v1alpha1.TenantCluster) *v1alpha1.TenantCluster {
	f := &v1alpha1.TenantCluster{}
	f.Name = bounded(c.Name, maxNameLen)
	if env := c.Labels[v1alpha1.LabelEnvironment]; env != "" {
		f.Labels = map[string]string{v1alpha1.LabelEnvironment: bounded(env, maxLabelLen)}
		owner := c.Annotations[v1alpha1.AnnotationOwner]
		if owner == "" {
			owner = c.Annotations[v1alpha1.AnnotationCreatorEmail]
		}
		if owner != "" {
			f.Annotations = map[string]string{v1alpha1.AnnotationOwner: policy.OwnerKey(owner)}
		}
	}
	w, mt := &c.Spec.Workers, &c.Spec.Workers.MachineTemplate
	f.Spec.Workers.Replicas = w.Replicas
	f.Spec.Workers.MachineTemplate.CPU = mt.CPU
	f.Spec.Workers.MachineTemplate.Memory = mt.Memory.DeepCopy()
	f.Spec.Workers.MachineTemplate.DiskSize = mt.DiskSize.DeepCopy()
	return f
}

// sameFigures reports whether two clusters' figures count the same in every rule.
func sameFigures(a, b *v1alpha1.TenantCluster) bool {
	return equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations) &&
		equality.Semantic.DeepEqual(a.Spec, b.Spec)
}

// covers reports whether figures a count at least as much as figures b in every sum and in
// the same environment and owner's counts: a may stand in for b without lowering a figure.
func covers(a, b *v1alpha1.TenantCluster) bool {
	if a.Labels[v1alpha1.LabelEnvironment] != b.Labels[v1alpha1.LabelEnvironment] ||
		a.Annotations[v1alpha1.AnnotationOwner] != b.Annotations[v1alpha1.AnnotationOwner] {
		return false
	}
	wa, wb := &a.Spec.Workers, &b.Spec.Workers
	ma, mb := &wa.MachineTemplate, &wb.MachineTemplate
	notLess := func(x, y resource.Quantity) bool { return y.Sign() >= 0 && x.Cmp(y) >= 0 }
	return wb.Replicas >= 0 && wa.Replicas >= wb.Replicas && mb.CPU >= 0 && ma.CPU >= mb.CPU &&
		notLess(ma.Memory, mb.Memory) && notLess(ma.DiskSize, mb.DiskSize)
}

// lockUsage is the namespace's figures, locked.
func (r *CachedReader) lockUsage(ns string) *nsUsage {
	key := bounded(ns, maxLabelLen)
	for {
		r.mu.Lock()
		u := r.ns[key]
		if u == nil {
			u = &nsUsage{key: key, index: policy.NewSiblingIndex(), cached: map[string]*v1alpha1.TenantCluster{},
				over: map[string]*pending{}, beside: map[string]map[string]*pending{}}
			r.ns[key] = u
		}
		r.mu.Unlock()
		u.mu.Lock()
		if !u.dead {
			return u
		}
		u.mu.Unlock()
	}
}

// dropIfEmpty forgets a namespace that holds neither clusters nor reservations.
func (r *CachedReader) dropIfEmpty(u *nsUsage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.dead || !u.empty() {
		return
	}
	u.dead = true
	if r.ns[u.key] == u {
		delete(r.ns, u.key)
	}
}

func (u *nsUsage) empty() bool { return len(u.cached)+len(u.over)+len(u.beside) == 0 }

// observe applies an informer event to its namespace's figures, retiring the reservations
// the cache now shows.
func (r *CachedReader) observe(obj any, deleted bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, deleted = d.Obj, true
	}
	c, ok := obj.(*v1alpha1.TenantCluster)
	if !ok {
		return
	}
	u := r.lockUsage(c.Namespace)
	if rv, ok := parseRV(c.ResourceVersion); ok {
		for cur := r.observedRV.Load(); rv > cur && !r.observedRV.CompareAndSwap(cur, rv); cur = r.observedRV.Load() {
		}
	}
	if deleted {
		delete(u.cached, c.Name)
	} else {
		u.cached[c.Name] = c
	}
	r.settle(u, c, deleted)
	u.reindex(c.Name)
	empty := u.empty()
	u.mu.Unlock()
	if empty {
		r.dropIfEmpty(u)
	}
}

// settle retires the reservations of c's name that the cache now shows (or that can no
// longer be stored), and sets beside a reservation that no longer covers what the cache
// holds.
func (r *CachedReader) settle(u *nsUsage, c *v1alpha1.TenantCluster, deleted bool) {
	name, uid := c.Name, string(c.UID)
	var f *v1alpha1.TenantCluster
	shows := func(p *pending) bool {
		if f == nil {
			f = figures(c)
		}
		return sameFigures(p.c, f)
	}
	for key, p := range u.beside[name] {
		switch {
		case p.uid != "" && p.uid == uid && (p.create || deleted || shows(p)),
			p.uid == "" && p.create && !deleted && uid != p.was && shows(p):
			u.dropBeside(name, key)
		}
	}
	p := u.over[name]
	switch {
	case p == nil:
	case deleted || p.uid != uid:
		delete(u.over, name)
		if !deleted || p.uid != uid {
			u.addBeside(p, r.seq.Add(1))
		}
	case shows(p): // sets f
		delete(u.over, name)
	case !covers(p.c, f):
		delete(u.over, name)
		u.addBeside(p, r.seq.Add(1))
	}
}

// reindex sets the index's entry of name: the reservation counted in its place, else the
// cache's, else none.
func (u *nsUsage) reindex(name string) {
	switch p := u.over[name]; {
	case p != nil:
		u.index.Set(p.c)
	case u.cached[name] != nil:
		u.index.Set(u.cached[name])
	default:
		u.index.Delete(name)
	}
}

// addBeside counts p beside whatever else the namespace holds, under an index key that no
// cluster's name can be (a name holds no NUL).
func (u *nsUsage) addBeside(p *pending, seq uint64) {
	p.key = p.name + "\x00" + strconv.FormatUint(seq, 36)
	c := *p.c
	c.Name = p.key
	p.c = &c
	m := u.beside[p.name]
	if m == nil {
		m = map[string]*pending{}
		u.beside[p.name] = m
	}
	m[p.key] = p
	u.index.Set(p.c)
}

func (u *nsUsage) dropBeside(name, key string) {
	m := u.beside[name]
	delete(m, key)
	if len(m) == 0 {
		delete(u.beside, name)
	}
	u.index.Delete(key)
}
