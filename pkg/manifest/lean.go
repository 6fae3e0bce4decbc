package manifest

import (
	"crypto/sha256"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// WholeBytes decides what a Load keeps of its TenantClusters, in this one place: the
// clusters of the files it reads within its first WholeBytes bytes are held whole; those
// of the files after are kept as their counted fields and where their documents lie
// (Clusters), each read again when asked for whole, so that a tree of 100,000 clusters
// costs a few hundred bytes a cluster instead of several KiB, and a small tree is never
// read twice. Standard input, a List's items and a cluster with fields left unjudged are
// always held whole (reading one again would read what cannot be, or decode the whole
// List), and so is every cluster of a Load whose caller reads each whole anyway
// (Options.ReadsEveryCluster: a change check, which would otherwise decode each twice).
// Tests set it (0: every cluster it can a record; math.MaxInt64: none) to hold
// both ways to the same results; nothing else changes it.
var WholeBytes int64 = 256 << 10

// keepsRecords reports whether a Load keeps the clusters of a file as records: its
// position in what the Load read (read, its own bytes included) is past WholeBytes, and
// the caller does not read every cluster whole anyway (Options.ReadsEveryCluster; a test
// that sets WholeBytes to 0 has records all the same, to hold both ways to one result).
func keepsRecords(name string, read int64, readsEvery bool) bool {
	if readsEvery && WholeBytes != 0 {
		return false
	}
	return name != Stdin && read > WholeBytes
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

// leanSpan is where the document of seg lies in the file text, for an object a Load
// may keep as a record; nil for any other.
func leanSpan(opts Options, file string, seg segment) *docSpan {
	if opts.from == nil || file == Stdin {
		return nil
	}
	return &docSpan{off: int64(seg.Off), n: uint32(len(seg.Text)), line: int32(seg.Line), doc: int32(seg.Doc),
		sum: digest(unsafe.Slice(unsafe.StringData(seg.Text), len(seg.Text)))}
}

// recordable reports whether a Load can keep o as a record (o's span, the document's, is
// in spans): a TenantCluster that is a document of its own, nothing left unjudged.
func recordable(o *Object, spans map[int]*docSpan) (*docSpan, bool) {
	sp := spans[o.Source.Doc]
	if sp == nil || o.Source.Item != 0 || len(o.NotJudged) > 0 || !isCluster(o) {
		return nil, false
	}
	return sp, true
}

// rereader is what a Set needs to decode a record's document again as the Load did.
type rereader struct {
	opts Options
	tab  *pathTable

	mu         sync.Mutex
	quantities map[quantityKey]*resource.Quantity
}
