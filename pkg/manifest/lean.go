package manifest

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// A lean Load (Options.Lean) keeps, of each TenantCluster read from a file, only what a
// count over the whole tree reads (a ClusterRecord), not the decoded object, its line
// index or its node tree: a tree of 100,000 clusters then costs a few hundred bytes a
// cluster instead of several KiB. Whoever judges a cluster reads it again (Object.Full), from
// the bytes of its document only, which must be the bytes first read and validated.

// ClusterRecord is what a lean Load keeps of a TenantCluster: the fields a count of a
// namespace's clusters reads (the caps' figures, environments and owners, and the team
// that places a cluster without a namespace), and where its document lies.
type ClusterRecord struct {
	// Team is spec.teamRef.name ("" without one).
	Team string
	// Environment, Owner and Creator are the environment label and the owner and
	// creator-email annotations ("" when not set).
	Environment, Owner, Creator string
	// Replicas, CPU, Memory and DiskSize are spec.workers' replicas and machine template.
	// Memory and DiskSize are shared by the records of a Load that give the same figure:
	// never change them.
	Replicas         int32
	CPU              int32
	Memory, DiskSize *resource.Quantity

	span docSpan
	from *rereader
}

// docSpan is where a document lies in its file and a digest of its bytes (the first half
// of a SHA-256: a record is a few hundred bytes, and 128 bits tell a changed document).
type docSpan struct {
	off  int64
	n    uint32 // at most MaxDocumentBytes
	line int32  // of the document's first line
	doc  int32
	sum  [16]byte
}

// digest is a document's docSpan.sum.
func digest(b []byte) (d [16]byte) {
	sum := sha256.Sum256(b)
	copy(d[:], sum[:])
	return d
}

// Sibling is a TenantCluster holding only the record's fields, with the name and
// namespace given: what a count of the namespace's clusters reads, and nothing else.
func (r *ClusterRecord) Sibling(name, namespace string) v1alpha1.TenantCluster {
	var c v1alpha1.TenantCluster
	c.Name, c.Namespace = name, namespace
	if r.Environment != "" {
		c.Labels = map[string]string{v1alpha1.LabelEnvironment: r.Environment}
	}
	if r.Owner != "" || r.Creator != "" {
		c.Annotations = map[string]string{}
		if r.Owner != "" {
			c.Annotations[v1alpha1.AnnotationOwner] = r.Owner
		}
		if r.Creator != "" {
			c.Annotations[v1alpha1.AnnotationCreatorEmail] = r.Creator
		}
	}
	if r.Team != "" {
		c.Spec.TeamRef = &v1alpha1.LocalObjectReference{Name: r.Team}
	}
	w := &c.Spec.Workers
	w.Replicas, w.MachineTemplate.CPU = r.Replicas, r.CPU
	w.MachineTemplate.Memory, w.MachineTemplate.DiskSize = r.Memory.DeepCopy(), r.DiskSize.DeepCopy()
	return c
}

// ClusterPlace is the namespace a TenantCluster's manifest names ("" when it leaves it
// out) and its team (spec.teamRef.name), from its object or its record; false for an
// object that is not a TenantCluster.
func (o *Object) ClusterPlace() (namespace, team string, ok bool) {
	if tc, is := o.Obj.(*v1alpha1.TenantCluster); is {
		return tc.Namespace, tc.TeamName(), true
	}
	if o.Record != nil {
		return o.Namespace, o.Record.Team, true
	}
	return "", "", false
}

// recordOf is the record of a decoded cluster.
func recordOf(tc *v1alpha1.TenantCluster, span docSpan, from *rereader) *ClusterRecord {
	r := &ClusterRecord{Team: tc.TeamName(), Environment: tc.Labels[v1alpha1.LabelEnvironment],
		Owner: tc.Annotations[v1alpha1.AnnotationOwner], Creator: tc.Annotations[v1alpha1.AnnotationCreatorEmail],
		span: span, from: from}
	w := &tc.Spec.Workers
	r.Replicas, r.CPU = w.Replicas, w.MachineTemplate.CPU
	r.Memory, r.DiskSize = from.quantity(w.MachineTemplate.Memory), from.quantity(w.MachineTemplate.DiskSize)
	return r
}

// quantity is the Load's shared copy of q. Two quantities of one canonical text and one
// format hold the same value and sum and print alike, so either stands for the other.
func (rr *rereader) quantity(q resource.Quantity) *resource.Quantity {
	key := quantityKey{q.String(), q.Format}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if p, ok := rr.quantities[key]; ok {
		return p
	}
	p := q.DeepCopy()
	if rr.quantities == nil {
		rr.quantities = map[quantityKey]*resource.Quantity{}
	}
	if len(rr.quantities) < maxQuantities {
		rr.quantities[key] = &p
	}
	return &p
}

// maxQuantities bounds the shared quantities: a tree of distinct sizes keeps a copy each.
const maxQuantities = 4096

type quantityKey struct {
	text   string
	format resource.Format
}

// leanSpan is where the document of seg lies in the file text, for an object a lean Load
// keeps as a record; nil for any other.
func leanSpan(opts Options, file string, seg segment) *docSpan {
	if !opts.Lean || file == Stdin {
		return nil
	}
	return &docSpan{off: int64(seg.Off), n: uint32(len(seg.Text)), line: int32(seg.Line), doc: int32(seg.Doc),
		sum: digest(unsafe.Slice(unsafe.StringData(seg.Text), len(seg.Text)))}
}

// thin makes the TenantClusters of a lean Load's file records, once validated: the
// objects of a document of their own (a List's items stay whole: reading one again would
// decode the whole List).
func thin(objs []Object, spans map[int]*docSpan, from *rereader) {
	for i := range objs {
		o := &objs[i]
		tc, ok := o.Obj.(*v1alpha1.TenantCluster)
		sp := spans[o.Source.Doc]
		if !ok || sp == nil || o.Source.Item != 0 || len(o.NotJudged) > 0 {
			continue
		}
		o.Record = recordOf(tc, *sp, from)
		o.Obj, o.lines, o.explicit = nil, nil, nil
	}
}

// rereader is what a lean Set needs to decode a document again as the Load did.
type rereader struct {
	opts Options
	tab  *pathTable

	mu         sync.Mutex
	quantities map[quantityKey]*resource.Quantity
}

// Full is o with its object: o itself, or for a record of a lean Load the object decoded
// again from its document, whose bytes must be those the Load read (an error says the
// file changed since).
func (o *Object) Full() (Object, error) {
	r := o.Record
	if r == nil {
		return *o, nil
	}
	name := displayFile(o.Source.File)
	data, err := fileio.ReadSpan(o.Source.File, r.span.off, int64(r.span.n))
	if err == nil && digest(data) != r.span.sum {
		err = fmt.Errorf("it changed while it was being read")
	}
	if err != nil {
		return Object{}, fmt.Errorf("%s: reading %s %q again: %w", name, o.Kind, qualified(o.Namespace, o.Name), err)
	}
	seg := segment{Text: string(data), Line: int(r.span.line), Doc: int(r.span.doc)}
	objs, _, err := decodeSegments(o.Source.File, []segment{seg}, r.from.opts, newBudget(), r.from.tab)
	if err != nil || len(objs) != 1 || objs[0].Obj == nil {
		return Object{}, fmt.Errorf("internal error: %s: %s %q does not decode again as it did (%v)", name, o.Kind, qualified(o.Namespace, o.Name), err)
	}
	full := objs[0]
	full.Source = o.Source
	return full, nil
}

// noRecords panics on a set that holds records: its TenantClusters are read with Full, one
// at a time, and a caller that lists them whole would miss them.
func (s *Set) noRecords() {
	for i := range s.Objects {
		if s.Objects[i].Record != nil {
			panic("internal error: the TenantClusters of a lean Load are read with Object.Full")
		}
	}
}
