package schema

import (
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// eachPair walks the pairs of a mapping, expanding merge keys ("<<") and refusing
// duplicate and non-scalar keys.
func (c *converter) eachPair(n *yaml.Node, p *field.Path, depth int, fn func(k string, kn, vn *yaml.Node)) {
	c.pairs(n, p, depth, fn, nil)
}

// pairs is eachPair of a mapping whose pairs pass through filter (nil: all pass): fn is
// only ever called, never kept, so that the callers' closures stay on their stacks.
func (c *converter) pairs(n *yaml.Node, p *field.Path, depth int, fn func(k string, kn, vn *yaml.Node), filter *mergeFilter) {
	var seen keySet
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		// Keys count too: merge keys ("<<") walk the same mappings again and again.
		if !c.tick(n.Content[i], p, depth) {
			return
		}
		kn, vn := yamldoc.Resolve(n.Content[i]), n.Content[i+1]
		if kn == nil || kn.Kind != yaml.ScalarNode {
			c.broken = true
			c.fail(p, n.Content[i].Line, "mapping keys must be strings")
			continue
		}
		if kn.ShortTag() == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		if kn.ShortTag() == "!!null" {
			c.broken = true
			c.fail(p, kn.Line, "mapping keys must be strings, got null")
			continue
		}
		k := kn.Value
		if first, dup := seen.get(k); dup {
			c.fail(child(p, k), kn.Line, "duplicate field (first set on line %d)", first)
			continue
		}
		seen.set(k, kn.Line)
		if filter.pass(k) {
			fn(k, kn, vn)
		}
	}
	if len(merges) > 0 {
		c.mergePairs(n, p, depth, merges, seen, fn, filter)
	}
}

// mergeFilter passes on, of the pairs a merge key brings in, those that neither the
// mapping itself nor an earlier source set; outer is the filter of the mapping itself,
// when it is a merge source too.
type mergeFilter struct {
	seen  *keySet
	sub   map[string]bool
	outer *mergeFilter
}

// pass reports whether the key k passes every filter, innermost first, each marking it
// as set as it passes.
func (f *mergeFilter) pass(k string) bool {
	for ; f != nil; f = f.outer {
		if _, explicit := f.seen.get(k); explicit || f.sub[k] {
			return false
		}
		f.sub[k] = true
	}
	return true
}

// mergePairs walks the mappings merge keys ("<<") refer to, after the explicit pairs;
// seen is a copy of the explicit keys (so that pairs' own stays on its stack).
func (c *converter) mergePairs(n *yaml.Node, p *field.Path, depth int, merges []*yaml.Node, seen keySet, fn func(k string, kn, vn *yaml.Node), outer *mergeFilter) {
	// Merged keys come after explicit ones and never override them.
	for _, m := range merges {
		m = yamldoc.Resolve(m)
		var sources []*yaml.Node
		switch {
		case m != nil && m.Kind == yaml.MappingNode:
			sources = []*yaml.Node{m}
		case m != nil && m.Kind == yaml.SequenceNode:
			for _, s := range m.Content {
				sources = append(sources, yamldoc.Resolve(s))
			}
		default:
			sources = []*yaml.Node{m} // refused below, not ignored
		}
		for _, s := range sources {
			if s == nil || s.Kind != yaml.MappingNode {
				c.broken = true
				c.fail(p, n.Line, "merge key \"<<\" must refer to mappings")
				return
			}
			if depth > maxDepth {
				c.broken = true
				c.fail(p, n.Line, "nested more than %d levels deep", maxDepth)
				return
			}
			f := &mergeFilter{seen: &seen, sub: map[string]bool{}, outer: outer}
			c.pairs(s, p, depth+1, fn, f)
			for k := range f.sub {
				seen.set(k, 0)
			}
		}
	}
}
