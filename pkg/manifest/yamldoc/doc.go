// Package yamldoc is what reading and editing manifests both take from the text of a YAML
// file: its documents (split the same way by both, so that document indices agree), their
// parse with the bounds on nodes, aliases followed, the line where each field of an object
// was written, and the strings a Load shares between its objects.
package yamldoc

import "go.yaml.in/yaml/v3"

// Resolve follows aliases.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}
