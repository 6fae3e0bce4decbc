package manifest

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// hasAliases reports anchors, aliases or merge keys, which in-place edits cannot follow.
func hasAliases(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge") {
		return true
	}
	for _, c := range n.Content {
		if hasAliases(c) {
			return true
		}
	}
	return false
}

// expand replaces aliases by copies and merge keys by the keys they bring, so a document
// with anchors can still be edited (it is then re-rendered as a whole).
func expand(n *yaml.Node, depth int) (*yaml.Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested too deeply")
	}
	n = resolve(n)
	if n == nil || n.Kind == yaml.AliasNode {
		return nil, fmt.Errorf("unresolvable alias")
	}
	c := *n
	c.Anchor = ""
	c.Content = nil
	if n.Kind == yaml.MappingNode {
		conv := newConverter(false)
		var err error
		conv.eachPair(n, nil, depth, func(_ string, kn, vn *yaml.Node) {
			if err != nil {
				return
			}
			var kc, vc *yaml.Node
			if kc, err = expand(kn, depth+1); err == nil {
				vc, err = expand(vn, depth+1)
			}
			c.Content = append(c.Content, kc, vc)
		})
		if err != nil {
			return nil, err
		}
		if len(conv.errs) > 0 {
			return nil, fmt.Errorf("%s", conv.errs[0].msg)
		}
		return &c, nil
	}
	for _, ch := range n.Content {
		x, err := expand(ch, depth+1)
		if err != nil {
			return nil, err
		}
		c.Content = append(c.Content, x)
	}
	return &c, nil
}
