package manifest

import (
	"sync/atomic"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxRunNodes bounds the nodes, aliases expanded, that one Load converts across every
// document, so that many documents each under maxNodes cannot add up to exhaust memory.
// It is counted in nodes of loosely kept objects (unstructured maps, the costliest to
// keep); a node of a known kind, kept in its typed struct, weighs a quarter of one, so
// that a real tree of 10,000 clusters (about 2 million nodes) still loads.
const maxRunNodes = 1 << 20

// Weights of a node against the run's bound, in quarters of a loosely kept node.
const (
	typedWeight = 1
	looseWeight = 4
)

// runUnits is the bound in units; a variable only so that tests can reach it quickly.
var runUnits = maxRunNodes * looseWeight

// budget counts the nodes a Load has converted, in units of typedWeight.
type budget struct {
	units    int
	reported bool

	// A worker's budget (parallel.go) also adds its units to the run's shared total, by
	// batches of flushUnits, and is dropped once that total is over the bound.
	shared  *atomic.Int64
	flushed int
	dropped bool
}

const flushUnits = 1024

func newBudget() *budget { return &budget{} }

// take counts one node of weight w; false once the run is over its bound.
func (b *budget) take(w int) bool {
	if b == nil {
		return true
	}
	b.units += w
	if b.shared != nil && b.units-b.flushed >= flushUnits {
		if b.shared.Add(int64(b.units-b.flushed)) > int64(runUnits) {
			b.dropped = true
		}
		b.flushed = b.units
	}
	return b.units <= runUnits && !b.dropped
}

func (b *budget) spent() bool { return b != nil && (b.units > runUnits || b.dropped) }

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
			c.fail(p, n.Line, "the manifests together are too large (more than %d nodes, aliases expanded); nothing after this point was read", maxRunNodes)
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
	n = resolve(n)
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
