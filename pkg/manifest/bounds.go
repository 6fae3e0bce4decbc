package manifest

import (
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// spent reports a bound crossed; it stays crossed when later bytes raise the bound.
func (b *budget) spent() bool {
	return b != nil && (b.over() || b.dropped || b.reported)
}

// tick counts a node against the bounds of its document and of the run, and checks its
// depth; false (with the error recorded once) past any of them.
func (c *converter) tick(n *yaml.Node, p *field.Path, depth int) bool {
	if !c.tickOK(n, p, depth) {
		c.broken = true
		return false
	}
	return true
}

func (c *converter) tickOK(n *yaml.Node, p *field.Path, depth int) bool {
	c.nodes++
	if c.nodes > maxNodes {
		if c.nodes == maxNodes+1 {
			c.fail(p, n.Line, "document too large (aliases expand to more than %d nodes)", maxNodes)
		}
		return false
	}
	if !c.budget.take(c.weight) {
		if !c.budget.reported {
			c.budget.reported = true
			if c.budget.loose > runUnits {
				c.fail(p, n.Line, "the manifests together are too large (more than %d nodes of kinds other than Butler's and Steward's, aliases expanded); nothing after this point was read", maxRunNodes)
			} else {
				c.fail(p, n.Line, "the manifests together are too large (more than %d nodes for %s read, aliases expanded); nothing after this point was read",
					c.budget.limit, fileio.Size((c.budget.limit-int64(runUnits))*int64(bytesPerUnit)))
			}
		}
		return false
	}
	if depth > maxDepth {
		c.fail(p, n.Line, "nested more than %d levels deep", maxDepth)
		return false
	}
	return true
}

// count walks a value the object keeps without converting it (an unknown field of a kind
// that allows them) only to count it, so that aliases cannot hide work from the bounds:
// the writer expands what the reader kept.
func (c *converter) count(n *yaml.Node, p *field.Path, depth int) bool {
	if !c.tick(n, p, depth) {
		return false
	}
	n = yamldoc.Resolve(n)
	if n == nil || n.Kind == yaml.AliasNode {
		c.broken = true
		c.fail(p, 0, "unresolvable alias")
		return false
	}
	for _, ch := range n.Content {
		if !c.count(ch, p, depth+1) {
			return false
		}
	}
	return true
}
