package edit

import (
	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// itemNames returns the name of every item when all are mappings with a unique string
// name, so lists like environments and access.users match by name, not position.
func itemNames(n *yaml.Node) ([]string, bool) {
	names := make([]string, 0, len(n.Content))
	seen := map[string]bool{}
	for _, it := range n.Content {
		it = yamldoc.Resolve(it)
		if it == nil || it.Kind != yaml.MappingNode {
			return nil, false
		}
		name := ""
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value == "name" {
				if v := yamldoc.Resolve(it.Content[i+1]); v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
					name = v.Value
				}
			}
		}
		if name == "" || seen[name] {
			return nil, false
		}
		seen[name] = true
		names = append(names, name)
	}
	return names, true
}

// itemMatch is how the items of a list in the file (d) meet those of the new object (s).
type itemMatch struct {
	pairs                  []itemPair   // items in both, to merge
	result, added, removed []*yaml.Node // the new list, the items new in it, those gone
	reorder                bool         // the items kept are in another order
}

type itemPair struct{ d, s *yaml.Node }

// matchItems pairs items by name when every item on both sides has a unique one
// (environments, access.users), else by position.
func matchItems(orig, src []*yaml.Node) itemMatch {
	var m itemMatch
	dn, ok1 := itemNames(&yaml.Node{Content: orig})
	sn, ok2 := itemNames(&yaml.Node{Content: src})
	if !ok1 || !ok2 || len(orig) == 0 || len(src) == 0 {
		for j, it := range src {
			if j < len(orig) {
				m.pairs = append(m.pairs, itemPair{orig[j], it})
				m.result = append(m.result, orig[j])
			} else {
				m.added = append(m.added, it)
				m.result = append(m.result, it)
			}
		}
		if len(orig) > len(src) {
			m.removed = orig[len(src):]
		}
		return m
	}
	idx := map[string]int{}
	for i, n := range dn {
		idx[n] = i
	}
	matched := make([]bool, len(orig))
	last, sawNew := -1, false
	for j, n := range sn {
		i, ok := idx[n]
		if !ok {
			sawNew = true
			m.added = append(m.added, src[j])
			m.result = append(m.result, src[j])
			continue
		}
		if i < last || sawNew {
			m.reorder = true
		}
		last = i
		matched[i] = true
		m.pairs = append(m.pairs, itemPair{orig[i], src[j]})
		m.result = append(m.result, orig[i])
	}
	for i, ok := range matched {
		if !ok {
			m.removed = append(m.removed, orig[i])
		}
	}
	return m
}
