package manifest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// The TenantClusters of a Set are not among its Objects: they are its Clusters, one
// collection that is the same whatever a Load kept of them. Every cluster has its counted
// fields (Cluster: what a count of a namespace's clusters reads); its whole object is
// either held (a small tree, standard input, a List's items) or read again from its
// document, whose bytes must be those the Load read (WholeBytes decides which, in one
// place). A rule over clusters therefore goes through Clusters in either case, and one
// that ranges over Objects sees no cluster in either.

// Cluster is what a Set knows of each TenantCluster without its object: its name and
// place, where it was read, and the fields a count of its namespace's clusters reads (the
// caps' figures, its environment and owners).
type Cluster struct {
	Name string
	// Namespace is as written: "" when the manifest leaves it out (Place fills it in).
	Namespace  string
	APIVersion string
	Source     Source
	// Team is spec.teamRef.name ("" without one).
	Team string
	// Environment, Owner and Creator are the environment label and the owner and
	// creator-email annotations ("" when not set).
	Environment, Owner, Creator string
	// Replicas, CPU, Memory and DiskSize are spec.workers' replicas and machine template.
	// Memory and DiskSize may be shared with other clusters or the object: never change them.
	Replicas         int32
	CPU              int32
	Memory, DiskSize *resource.Quantity
}

// Place is the namespace the cluster lives in: as written, or for a manifest that leaves
// it out its team's namespace (team's, the Team the set holds by that name, or without
// one the team's name), as it would be once applied to the team's namespace. The one
// rule for it, which the checks and the stores share.
func (c *Cluster) Place(team *v1alpha1.Team) string {
	switch {
	case c.Namespace != "":
		return c.Namespace
	case team != nil:
		return team.TeamNamespace()
	}
	return c.Team
}

// clusterEntry is one cluster of a Set: its counted fields, and either its object (obj) or
// where to read it again (rec), never both: a change check holds every cluster of two
// trees, and a record's fields beside each held object were a fifth of what it kept.
type clusterEntry struct {
	Cluster
	// at places the cluster among the set's objects as read: before Objects[at].
	at  int
	obj *Object
	rec *record
}

// record is where a cluster's document lies, to read it again. Never changed once made:
// a file reused from another tree shares it.
type record struct {
	file string // the file read again: Source.File but for a file reused from another tree
	span docSpan
	from *rereader
}

// Clusters are the TenantClusters of a Set, in the order read. The zero value is empty.
// It is not safe to change while read.
type Clusters struct {
	list []clusterEntry
}

// Len is the number of clusters.
func (c *Clusters) Len() int { return len(c.list) }

// At is the counted fields of cluster i, for reading only.
func (c *Clusters) At(i int) *Cluster { return &c.list[i].Cluster }

// Find is the index of the cluster of that namespace and name, or -1. When none has that
// namespace exactly, one whose manifest leaves the namespace out matches too (as Set.Find).
func (c *Clusters) Find(namespace, name string) int {
	loose := -1
	for i := range c.list {
		e := &c.list[i]
		if e.Name != name {
			continue
		}
		if e.Namespace == namespace {
			return i
		}
		if e.Namespace == "" && loose < 0 {
			loose = i
		}
	}
	return loose
}

// Get is cluster i whole: the object held, or read again from its document (an error
// names the file and the cluster when it cannot be, or the file changed since the Load).
// The object is the caller's to read; it may be shared with the set, so never change it.
func (c *Clusters) Get(i int) (Object, error) {
	e := &c.list[i]
	if e.obj != nil {
		return e.held(), nil
	}
	return e.reread()
}

// Held reports whether cluster i is held whole: Get then gives the set's own object
// (never to be changed), else one read again for the caller.
func (c *Clusters) Held(i int) bool { return c.list[i].obj != nil }

// Same reports whether clusters i of c and j of d are one object without reading them:
// one decoding (a file another tree's Load reused), or records of documents of the same
// bytes (validated documents of equal bytes decode to equal objects). False says only
// that this cannot tell: the caller compares them whole.
func (c *Clusters) Same(i int, d *Clusters, j int) bool {
	a, b := &c.list[i], &d.list[j]
	if a.obj != nil || b.obj != nil {
		return a.obj != nil && b.obj != nil && a.obj.Obj == b.obj.Obj
	}
	return a.rec.span.sum == b.rec.span.sum && a.rec.span.n == b.rec.span.n
}

// Put makes cluster i o (a TenantCluster whole, as a write left it), held from now on.
func (c *Clusters) Put(i int, o Object) {
	fillIdentity(&o)
	c.list[i] = wholeEntry(o, c.list[i].at)
}

// Each calls fn with each cluster whole, in order; see EachOf.
func (c *Clusters) Each(fn func(i int, o Object) error) error {
	order := make([]int, len(c.list))
	for i := range order {
		order[i] = i
	}
	return c.EachOf(order, func(i int, o Object, err error) error {
		if err != nil {
			return err
		}
		return fn(i, o)
	})
}

// aheadBatch is how many clusters EachOf reads at once; it reads at most two batches ahead
// of its caller, each cluster a whole object held until the caller has it.
const aheadBatch = 64

type readResult struct {
	o   Object
	err error
}

// EachOf calls fn with the clusters of order (indexes), whole, in that order, with the
// error of one that could not be read again (fn decides whether to go on: an error it
// returns stops EachOf, which returns it). Clusters read again are read on every core, a
// batch ahead of fn, so that fn seldom waits for one.
func (c *Clusters) EachOf(order []int, fn func(i int, o Object, err error) error) error {
	records := 0
	for _, i := range order {
		if c.list[i].obj == nil {
			records++
		}
	}
	if records < 2 {
		for _, i := range order {
			o, err := c.Get(i)
			if err := fn(i, o, err); err != nil {
				return err
			}
		}
		return nil
	}
	// Batches, not a cluster at a time: handing each cluster between goroutines kept a
	// core idle a third of the time (the caller, woken behind a busy reader, waited for it
	// to block); a batch is one hand-over, and the next is read while fn has this one.
	var stop atomic.Bool
	next := c.readBatch(order, &stop)
	defer func() { stop.Store(true); next.wait() }()
	for len(order) > 0 {
		cur, n := next, min(aheadBatch, len(order))
		cur.wait()
		if len(order) > n {
			next = c.readBatch(order[n:], &stop)
		} else {
			next = batch{}
		}
		for k, i := range order[:n] {
			if err := fn(i, cur.out[k].o, cur.out[k].err); err != nil {
				return err
			}
			cur.out[k] = readResult{} // fn has it: not held here any longer
		}
		order = order[n:]
	}
	return nil
}

// batch is the first aheadBatch clusters of an order, read on every core.
type batch struct {
	out []readResult
	wg  *sync.WaitGroup
}

func (b batch) wait() {
	if b.wg != nil {
		b.wg.Wait()
	}
}

// readBatch starts reading the first aheadBatch clusters of order; stop ends it early
// (what is not read then is never handed to anyone).
func (c *Clusters) readBatch(order []int, stop *atomic.Bool) batch {
	b := batch{out: make([]readResult, min(aheadBatch, len(order))), wg: &sync.WaitGroup{}}
	var claimed atomic.Int32
	for range min(runtime.GOMAXPROCS(0), len(b.out)) {
		b.wg.Go(func() {
			for !stop.Load() {
				k := int(claimed.Add(1)) - 1
				if k >= len(b.out) {
					return
				}
				o, err := c.Get(order[k])
				b.out[k] = readResult{o, err}
			}
		})
	}
	return b
}

// reread decodes the entry's document again, as the Load did.
func (e *clusterEntry) reread() (Object, error) {
	name, r := displayFile(e.Source.File), e.rec
	data, err := fileio.ReadSpan(r.file, r.span.off, int64(r.span.n))
	if err == nil && digest(data) != r.span.sum {
		err = fmt.Errorf("it changed since it was read")
	}
	if err != nil {
		return Object{}, fmt.Errorf("%s: reading TenantCluster %q again: %w", name, qualified(e.Namespace, e.Name), err)
	}
	seg := segment{Text: string(data), Line: int(r.span.line), Doc: int(r.span.doc)}
	objs, _, err := decodeSegments(e.Source.File, []segment{seg}, r.from.opts, newBudget(), r.from.tab)
	if err != nil || len(objs) != 1 || !isCluster(&objs[0]) || objs[0].Name != e.Name {
		return Object{}, fmt.Errorf("internal error: %s: TenantCluster %q does not decode again as it did (%v)", name, qualified(e.Namespace, e.Name), err)
	}
	full := objs[0]
	full.Source = e.Source
	return full, nil
}

// wholeEntry is the entry of a cluster held whole; o is a TenantCluster.
func wholeEntry(o Object, at int) clusterEntry {
	tc := o.Obj.(*v1alpha1.TenantCluster)
	e := clusterEntry{Cluster: counted(o, tc), at: at}
	w := &tc.Spec.Workers.MachineTemplate
	e.Memory, e.DiskSize = &w.Memory, &w.DiskSize
	e.obj = &o
	return e
}

// recordEntry is the entry of a cluster read again when asked for whole: its counted
// fields and where its document lies.
func recordEntry(o Object, span docSpan, from *rereader, at int) clusterEntry {
	tc := o.Obj.(*v1alpha1.TenantCluster)
	e := clusterEntry{Cluster: counted(o, tc), at: at, rec: &record{file: o.Source.File, span: span, from: from}}
	w := &tc.Spec.Workers.MachineTemplate
	e.Memory, e.DiskSize = from.quantity(w.Memory), from.quantity(w.DiskSize)
	return e
}

// counted are the counted fields of a cluster (its quantities left to the caller).
func counted(o Object, tc *v1alpha1.TenantCluster) Cluster {
	return Cluster{Name: o.Name, Namespace: o.Namespace, APIVersion: o.APIVersion, Source: o.Source,
		Team: tc.TeamName(), Environment: tc.Labels[v1alpha1.LabelEnvironment],
		Owner: tc.Annotations[v1alpha1.AnnotationOwner], Creator: tc.Annotations[v1alpha1.AnnotationCreatorEmail],
		Replicas: tc.Spec.Workers.Replicas, CPU: tc.Spec.Workers.MachineTemplate.CPU}
}

// isCluster reports whether o is a TenantCluster of Butler's (a typed one): the objects a
// Set keeps in its Clusters.
func isCluster(o *Object) bool {
	_, ok := o.Obj.(*v1alpha1.TenantCluster)
	return ok
}

// held is the object of a held entry with the entry's Source: a file reused from another
// tree shares that tree's object (Options.Reuse), read from a file of another name.
func (e *clusterEntry) held() Object {
	o := *e.obj
	o.Source = e.Source
	return o
}

// ref names the cluster (a duplicate's error, a listing of what a tree holds).
func (e *clusterEntry) ref() Ref {
	return Ref{Source: e.Source, APIVersion: e.APIVersion, Kind: v1alpha1.KindTenantCluster, Name: e.Name, Namespace: e.Namespace}
}

// NotJudged are the fields of cluster i left out of its object because the tools do not
// know them yet (Options.Tolerate): such a cluster is always held whole.
func (c *Clusters) NotJudged(i int) []FieldOrigin {
	if o := c.list[i].obj; o != nil {
		return o.NotJudged
	}
	return nil
}

// Hold reads whole, and holds from now on, every cluster kept as a record whose document
// lies below dir: for a tree about to be removed (a base extracted from git), which
// nothing could read again.
func (s *Set) Hold(dir string) error {
	var idx []int
	for i := range s.Clusters.list {
		if e := &s.Clusters.list[i]; e.obj == nil && below(dir, e.rec.file) {
			idx = append(idx, i)
		}
	}
	return s.Clusters.EachOf(idx, func(i int, o Object, err error) error {
		if err != nil {
			return err
		}
		e := &s.Clusters.list[i]
		e.obj, e.rec = &o, nil
		return nil
	})
}

// below reports whether path is dir or lies below it.
func below(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
