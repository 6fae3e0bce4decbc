package webhook

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// ledgerClock retires reservations when their time is up, in every namespace at once: a
// namespace no review touches again does not keep its reservations (nor its place in
// CachedReader.ns) for good.
type ledgerClock struct {
	mu sync.Mutex
	q  expiries
}

type expiry struct {
	u *nsUsage
	p *pending
}

// expiries is a heap of reservations by their time (container/heap).
type expiries []expiry

func (q expiries) Len() int           { return len(q) }
func (q expiries) Less(i, j int) bool { return q[i].p.expires.Before(q[j].p.expires) }
func (q expiries) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *expiries) Push(x any)        { *q = append(*q, x.(expiry)) }
func (q *expiries) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = expiry{}
	*q = old[:len(old)-1]
	return x
}

// sweepEvery is how often Run's clock retires the reservations past their time.
func (r *CachedReader) sweepEvery() time.Duration { return max(r.ttl/8, 100*time.Millisecond) }

// remember puts p on the clock; the caller holds u.mu.
func (r *CachedReader) remember(u *nsUsage, p *pending) {
	r.clock.mu.Lock()
	heap.Push(&r.clock.q, expiry{u, p})
	r.clock.mu.Unlock()
}

// sweep retires every reservation past its time, in whatever namespace, and forgets the
// namespaces left empty. The caller holds no namespace's lock.
func (r *CachedReader) sweep(now time.Time) {
	var due []expiry
	r.clock.mu.Lock()
	for r.clock.q.Len() > 0 && now.After(r.clock.q[0].p.expires) {
		due = append(due, heap.Pop(&r.clock.q).(expiry))
	}
	r.clock.mu.Unlock()
	for _, e := range due {
		u, p := e.u, e.p
		u.mu.Lock()
		switch {
		case u.over[p.name] == p:
			delete(u.over, p.name)
			u.reindex(p.name)
		case u.beside[p.name][p.key] == p:
			u.dropBeside(p.name, p.key)
		}
		empty := u.empty()
		u.mu.Unlock()
		if empty {
			r.dropIfEmpty(u)
		}
	}
}

// runClock sweeps every sweepEvery until ctx ends.
func (r *CachedReader) runClock(ctx context.Context) {
	t := time.NewTicker(r.sweepEvery())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.sweep(r.now())
		}
	}
}

// DecideClusters runs decide with the namespace's figures (cache plus ledger), alone
// among the reviews of that namespace; when decide admits and reserve is not nil (not a
// dry run), reserve enters the ledger until the cache shows it. create says whether it is
// a create, whose reservation always counts beside what the cache holds.
func (r *CachedReader) DecideClusters(namespace string, reserve *v1alpha1.TenantCluster, create bool, decide func(*policy.SiblingIndex) bool) error {
	if !r.Synced() {
		return errNotSynced
	}
	now := r.now()
	r.sweep(now)
	u := r.lockUsage(namespace)
	defer u.mu.Unlock()
	if g := r.gate.Load(); g != nil && !(*g)() {
		return ErrNotLeader
	}
	if !decide(u.index) || reserve == nil {
		return nil
	}
	r.reserve(u, reserve, create, now)
	return nil
}

// reserve enters an admitted cluster in the ledger. An update of the cluster the cache
// holds (the same uid) that raises or keeps every figure counts in its place; anything
// else counts beside it.
func (r *CachedReader) reserve(u *nsUsage, c *v1alpha1.TenantCluster, create bool, now time.Time) {
	f := figures(c)
	p := &pending{name: f.Name, uid: bounded(string(c.UID), maxUIDLen), create: create, c: f, expires: now.Add(r.ttl)}
	cur := u.cached[f.Name]
	if cur != nil {
		p.was = string(cur.UID)
	}
	if !create && cur != nil && p.uid != "" && p.uid == p.was {
		held := figures(cur)
		if sameFigures(held, f) {
			return // the cache already shows it so
		}
		counted := held
		if o := u.over[f.Name]; o != nil {
			counted = o.c
		}
		if covers(f, held) && covers(f, counted) {
			p.key = f.Name
			u.over[f.Name] = p
			u.reindex(f.Name)
			r.remember(u, p)
			return
		}
	}
	u.addBeside(p, r.seq.Add(1))
	r.remember(u, p)
}

// Pending is the number of ledger entries of a namespace (for tests and metrics).
func (r *CachedReader) Pending(namespace string) int {
	r.sweep(r.now())
	u := r.lockUsage(namespace)
	defer u.mu.Unlock()
	n := len(u.over)
	for _, m := range u.beside {
		n += len(m)
	}
	return n
}
