package schema

import (
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

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
	if c.budget != nil {
		if ok, msg := c.budget.Take(c.weight); !ok {
			if msg != "" {
				c.fail(p, n.Line, "%s", msg)
			}
			return false
		}
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
