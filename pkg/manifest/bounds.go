package manifest

import (
	"fmt"
	"sync/atomic"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// The run's bounds on nodes, aliases expanded, so that many documents each under maxNodes
// cannot add up to exhaust memory. They are counted in units: a node of a loosely kept
// object (unstructured maps, the costliest to keep) weighs looseWeight units, a node of a
// known kind, kept in its typed struct, one.
//
//   - Loosely kept nodes: at most maxRunNodes in a run, whatever was read.
//   - All nodes: maxRunNodes loose ones' worth to start with, and one more unit for every
//     bytesPerUnit (8) bytes read. An honest tree of Butler objects holds about one node in 20
//     bytes (2 million nodes in 38 MB for 10,000 clusters), a Team's list of users one in
//     10; only aliases make more nodes of fewer bytes, so a tree of any size loads, and
//     what aliases expand to is bounded by what was read (8 bytes a unit leaves an honest
//     tree twice its nodes, and padding a hostile one with comments buys little).
const maxRunNodes = 1 << 20

// Weights of a node against the run's bound, in quarters of a loosely kept node.
const (
	typedWeight = 1
	looseWeight = 4
)

// runUnits is the bound in units before anything is read, and bytesPerUnit how many bytes
// read add a unit to it; variables only so that tests can reach them quickly.
var (
	runUnits     = maxRunNodes * looseWeight
	bytesPerUnit = 8
)

// runLimit is the run's bound in units once read bytes have been read.
func runLimit(read int64) int64 { return int64(runUnits) + read/int64(bytesPerUnit) }

// budget counts the nodes a Load has converted, in units of typedWeight, against the
// bound of what was read so far (limit), and the units of loosely kept nodes (loose)
// against runUnits.
type budget struct {
	units    int
	loose    int
	limit    int64
	reported bool

	// A worker's budget (parallel.go) also adds its units to the run's shared total, by
	// batches of flushUnits, and is dropped once that total is over the bound of every
	// byte read so far (read).
	shared  *atomic.Int64
	read    *atomic.Int64
	flushed int
	dropped bool
}

const flushUnits = 1024

func newBudget() *budget { return &budget{limit: runLimit(0)} }

// grant raises the bound for n more bytes read.
func (b *budget) grant(n int) {
	if b != nil {
		b.limit += int64(n) / int64(bytesPerUnit)
	}
}

// take counts one node of weight w; false once the run is over a bound.
func (b *budget) take(w int) bool {
	if b == nil {
		return true
	}
	b.units += w
	if w == looseWeight {
		b.loose += w
	}
	if b.shared != nil && b.units-b.flushed >= flushUnits {
		if b.shared.Add(int64(b.units-b.flushed)) > runLimit(b.read.Load()) {
			b.dropped = true
		}
		b.flushed = b.units
	}
	return !b.over() && !b.dropped && !b.reported
}

func (b *budget) over() bool { return int64(b.units) > b.limit || b.loose > runUnits }

// Take is take for a converter (schema.Budget): false past a bound, with the message of
// the bound crossed the first time one is.
func (b *budget) Take(w int) (bool, string) {
	if b.take(w) {
		return true, ""
	}
	if b.reported {
		return false, ""
	}
	b.reported = true
	if b.loose > runUnits {
		return false, fmt.Sprintf("the manifests together are too large (more than %d nodes of kinds other than Butler's and Steward's, aliases expanded); nothing after this point was read", maxRunNodes)
	}
	return false, fmt.Sprintf("the manifests together are too large (more than %d nodes for %s read, aliases expanded); nothing after this point was read",
		b.limit, fileio.Size((b.limit-int64(runUnits))*int64(bytesPerUnit)))
}

// spent reports a bound crossed; it stays crossed when later bytes raise the bound.
func (b *budget) spent() bool {
	return b != nil && (b.over() || b.dropped || b.reported)
}
