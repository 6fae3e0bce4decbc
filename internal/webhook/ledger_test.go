package webhook

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// testClock is a clock a test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// syncedLedger is a CachedReader whose caches are filled by the test (observe) and whose
// clock the test moves: its figures and ledger without an API server.
func syncedLedger() (*CachedReader, *testClock) {
	clock := &testClock{now: time.Unix(1_700_000_000, 0)}
	started := make(chan struct{})
	close(started)
	return &CachedReader{ttl: DefaultLedgerTTL, now: clock.Now, ns: map[string]*nsUsage{}, started: started}, clock
}

const ledgerNS = "carol"

// ledgerCluster is carol's cluster as the API server stores it (with a uid), one worker
// of 2 CPUs and 4Gi.
func ledgerCluster(name, env string, replicas int32) *v1alpha1.TenantCluster {
	c := &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ledgerNS, UID: types.UID("uid-" + name),
		Labels:      map[string]string{v1alpha1.LabelEnvironment: env},
		Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: "carol@example.com"}}}
	c.Spec.TeamRef = &v1alpha1.LocalObjectReference{Name: ledgerNS}
	c.Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: "pc"}
	c.Spec.Workers.Replicas = replicas
	c.Spec.Workers.MachineTemplate.CPU = 2
	c.Spec.Workers.MachineTemplate.Memory = resource.MustParse("4Gi")
	return c
}

// ledgerDecide decides a create or update of c by carol as the handler does (decideCached),
// with the team's limits, and reports whether it was admitted.
func ledgerDecide(t *testing.T, r *CachedReader, team *v1alpha1.Team, op policy.Operation, c, old *v1alpha1.TenantCluster) bool {
	t.Helper()
	h := &Handler{}
	creq := policy.ClusterRequest{Operation: op, Cluster: c, Old: old, Team: team, Username: "carol@example.com",
		ProviderConfig: &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "pc", Namespace: v1alpha1.DefaultProviderNamespace}}}
	v := h.decideCached(r, &admissionv1.AdmissionRequest{}, creq)
	if !v.allowed && v.code != 403 {
		t.Fatalf("%s %s: %d %s", op, c.Name, v.code, v.message)
	}
	return v.allowed
}

// TestCreateNamingAHeldClusterTakesNothingAway: carol at a cap "creates" a cluster she
// already has (the API server will refuse it as AlreadyExists) in a shape that counts for
// less: another environment, no workers, smaller machines. Her next create, which needs
// the room that shape would free, is still refused: the create's reservation counts beside
// the cluster the cache holds, never in its place. Each cap in turn.
func TestCreateNamingAHeldClusterTakesNothingAway(t *testing.T) {
	for _, c := range []struct {
		name   string
		limits func(*v1alpha1.Team)
		shrink func(*v1alpha1.TenantCluster)
	}{
		{"environment cap", func(tm *v1alpha1.Team) {
			tm.Spec.Environments[0].Limits = &v1alpha1.EnvironmentLimits{MaxClusters: ptr(int32(2))}
		},
			func(c *v1alpha1.TenantCluster) { c.Labels[v1alpha1.LabelEnvironment] = "prod" }},
		{"member cap", func(tm *v1alpha1.Team) {
			tm.Spec.Environments[0].Limits = &v1alpha1.EnvironmentLimits{MaxClustersPerMember: ptr(int32(2))}
		}, func(c *v1alpha1.TenantCluster) { c.Labels[v1alpha1.LabelEnvironment] = "prod" }},
		{"node cap", func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxTotalNodes: ptr(int32(6))}
		},
			func(c *v1alpha1.TenantCluster) { c.Spec.Workers.Replicas = 0 }},
		{"CPU cap", func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxCPUCores: ptr(resource.MustParse("12"))}
		}, func(c *v1alpha1.TenantCluster) { c.Spec.Workers.MachineTemplate.CPU = 0 }},
		{"memory cap", func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxMemory: ptr(resource.MustParse("24Gi"))}
		}, func(c *v1alpha1.TenantCluster) { c.Spec.Workers.MachineTemplate.Memory = resource.MustParse("1Mi") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: ledgerNS}, Spec: v1alpha1.TeamSpec{
				Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}}
			c.limits(team)
			r, _ := syncedLedger()
			// Two dev clusters of 3 workers: 6 nodes, 12 CPUs, 24Gi; every cap is reached.
			r.observe(ledgerCluster("a", "dev", 3), false)
			r.observe(ledgerCluster("b", "dev", 3), false)
			if ledgerDecide(t, r, team, policy.Create, ledgerCluster("probe", "dev", 1), nil) {
				t.Fatal("the cap is not reached to begin with")
			}
			fake := ledgerCluster("a", "dev", 3)
			fake.UID = "uid-of-a-refused-create"
			c.shrink(fake)
			if !ledgerDecide(t, r, team, policy.Create, fake, nil) {
				t.Fatal("the create of a held name in a smaller shape was refused; the test wants it admitted")
			}
			if ledgerDecide(t, r, team, policy.Create, ledgerCluster("c", "dev", 1), nil) {
				t.Error("a third cluster was admitted past the cap after a create of a held name")
			}
			// The cache's next event of "a" (the refused create never stored) changes nothing.
			r.observe(ledgerCluster("a", "dev", 3), false)
			if ledgerDecide(t, r, team, policy.Create, ledgerCluster("c", "dev", 1), nil) {
				t.Error("a third cluster was admitted past the cap after the cache showed the held cluster again")
			}
		})
	}
}

// TestUpdateReservationsTakeNothingAway: an admitted update that lowers a figure (a scale
// down) or moves it (a relabelling) and is never stored leaves the cluster counting as the
// cache holds it; one that raises it counts at once; either is retired when the cache shows
// it.
func TestUpdateReservationsTakeNothingAway(t *testing.T) {
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: ledgerNS}, Spec: v1alpha1.TeamSpec{
		Environments:   []v1alpha1.EnvironmentSpec{{Name: "dev"}},
		ResourceLimits: &v1alpha1.TeamResourceLimits{MaxTotalNodes: ptr(int32(6))}}}
	r, _ := syncedLedger()
	a := ledgerCluster("a", "dev", 5)
	r.observe(a, false)
	down := a.DeepCopy()
	down.Spec.Workers.Replicas = 1
	if !ledgerDecide(t, r, team, policy.Update, down, a) {
		t.Fatal("scale down refused")
	}
	if ledgerDecide(t, r, team, policy.Create, ledgerCluster("b", "dev", 2), nil) {
		t.Error("a create was admitted into the room of a scale down not yet stored")
	}
	r.observe(down, false) // stored
	if r.Pending(ledgerNS) != 0 {
		t.Errorf("%d reservations left once the cache shows the scale down", r.Pending(ledgerNS))
	}
	up := down.DeepCopy()
	up.Spec.Workers.Replicas = 5
	if !ledgerDecide(t, r, team, policy.Update, up, down) {
		t.Fatal("scale up refused")
	}
	if ledgerDecide(t, r, team, policy.Create, ledgerCluster("b", "dev", 2), nil) {
		t.Error("a create was admitted past the node cap while a scale up is not yet stored")
	}
	r.observe(up, false)
	if r.Pending(ledgerNS) != 0 {
		t.Errorf("%d reservations left once the cache shows the scale up", r.Pending(ledgerNS))
	}
}

// ledgerSize is the reservations held and the namespaces known, across namespaces, without
// retiring any.
func ledgerSize(r *CachedReader) (entries, namespaces int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range r.ns {
		u.mu.Lock()
		entries += len(u.over)
		for _, m := range u.beside {
			entries += len(m)
		}
		u.mu.Unlock()
	}
	return entries, len(r.ns)
}

// forgedCreate is an admitted create as a review sent straight to the webhook can carry
// it: in a namespace of its own, no team, megabyte owner and creator annotations.
func forgedCreate(i int, big string) *v1alpha1.TenantCluster {
	c := ledgerCluster(fmt.Sprintf("x-%d", i), "dev", 1)
	c.Namespace = fmt.Sprintf("forged-%d", i)
	c.Spec.TeamRef, c.Spec.ProviderConfigRef = nil, nil
	c.Annotations[v1alpha1.AnnotationOwner] = big + "o"
	c.Annotations[v1alpha1.AnnotationCreatorEmail] = big + "c"
	c.Annotations["example.com/junk"] = big
	return c
}

// TestLedgerExpiresAcrossNamespaces: reservations in namespaces no review touches again
// are retired on the ledger's clock, and the namespaces forgotten.
func TestLedgerExpiresAcrossNamespaces(t *testing.T) {
	r, clock := syncedLedger()
	const n = 40
	for i := 0; i < n; i++ {
		if !ledgerDecide(t, r, nil, policy.Create, forgedCreate(i, "carol"), nil) {
			t.Fatal("refused")
		}
	}
	if e, ns := ledgerSize(r); e != n || ns != n {
		t.Fatalf("%d reservations in %d namespaces, want %d in %d", e, ns, n, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.runClock(ctx)
	clock.Add(DefaultLedgerTTL + time.Second)
	var e, ns int
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if e, ns = ledgerSize(r); e == 0 && ns == 0 {
			return
		}
	}
	t.Errorf("past the ledger's time, %d reservations in %d namespaces are still held", e, ns)
}

// TestLedgerKeepsOnlyFigures: 40 admitted creates carrying 2 MiB annotations each cost
// the ledger what their figures cost, not their annotations.
func TestLedgerKeepsOnlyFigures(t *testing.T) {
	r, _ := syncedLedger()
	const n = 40
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	before := heap()
	for i := 0; i < n; i++ {
		if !ledgerDecide(t, r, nil, policy.Create, forgedCreate(i, strings.Repeat("c", 2<<20)), nil) {
			t.Fatal("refused")
		}
	}
	grown := heap() - before
	if e, _ := ledgerSize(r); e != n {
		t.Fatalf("%d reservations, want %d", e, n)
	}
	t.Logf("%d reservations hold %d KiB", n, grown>>10)
	if grown > 4<<20 {
		t.Errorf("%d reservations of clusters with 2 MiB annotations hold %d MiB", n, grown>>20)
	}
	runtime.KeepAlive(r)
}
