package edit

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
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
// with anchors can still be edited (it is then re-rendered as a whole). The copies are
// counted: a few lines of aliases can stand for billions of nodes (an alias bomb), in
// fields the loader does not look into (the kinds it keeps loosely), so the expansion
// stops at maxNodes, as reading does.
func expand(n *yaml.Node) (*yaml.Node, error) {
	budget := yamldoc.MaxNodes
	return expandNode(n, 0, &budget)
}

func expandNode(n *yaml.Node, depth int, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("document too large (aliases expand to more than %d nodes)", yamldoc.MaxNodes)
	}
	if depth > yamldoc.MaxDepth {
		return nil, fmt.Errorf("nested too deeply")
	}
	n = yamldoc.Resolve(n)
	if n == nil || n.Kind == yaml.AliasNode {
		return nil, fmt.Errorf("unresolvable alias")
	}
	c := *n
	c.Anchor = ""
	c.Content = nil
	if n.Kind == yaml.MappingNode {
		var err error
		perr := schema.EachPair(n, depth, func(_ string, kn, vn *yaml.Node) {
			if err != nil {
				return
			}
			var kc, vc *yaml.Node
			if kc, err = expandNode(kn, depth+1, budget); err == nil {
				vc, err = expandNode(vn, depth+1, budget)
			}
			c.Content = append(c.Content, kc, vc)
		})
		if err != nil {
			return nil, err
		}
		if perr != nil {
			return nil, perr
		}
		return &c, nil
	}
	for _, ch := range n.Content {
		x, err := expandNode(ch, depth+1, budget)
		if err != nil {
			return nil, err
		}
		c.Content = append(c.Content, x)
	}
	return &c, nil
}

// aliasConstruct names the first anchor, alias or merge key in n, for a refusal: "the
// anchor &d (line 5)". An edit cannot keep them faithfully: a value changed under an alias
// changes every use of its anchor, and re-rendering turns the uses into copies.
func aliasConstruct(n *yaml.Node) string {
	switch {
	case n.Anchor != "":
		return fmt.Sprintf("the anchor &%s (line %d)", n.Anchor, n.Line)
	case n.Kind == yaml.AliasNode:
		return fmt.Sprintf("the alias *%s (line %d)", n.Value, n.Line)
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge":
		return fmt.Sprintf("the merge key << (line %d)", n.Line)
	}
	for _, c := range n.Content {
		if s := aliasConstruct(c); s != "" {
			return s
		}
	}
	return ""
}

// errAnchored ends the refusal of an edit of a document that uses anchors.
var errAnchored = errors.New("an edit cannot keep (its uses would become copies); nothing was written: edit the file by hand")
