package yamldoc

import "go.yaml.in/yaml/v3"

// Header is what a document says about itself, read leniently for error messages.
type Header struct {
	APIVersion, Kind, Name, Namespace string
	APIVersionLine, KindLine          int // where they are, for errors (0: absent)
}

// ReadHeader reads the header of the mapping n (a zero Header for anything else).
func ReadHeader(n *yaml.Node) Header {
	var h Header
	str := func(n *yaml.Node, k string) (string, *yaml.Node) {
		n = Resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return "", nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if kn := Resolve(n.Content[i]); kn != nil && kn.Value == k {
				v := Resolve(n.Content[i+1])
				if v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
					return v.Value, v
				}
				return "", v
			}
		}
		return "", nil
	}
	var av, kn *yaml.Node
	h.APIVersion, av = str(n, "apiVersion")
	h.Kind, kn = str(n, "kind")
	if av != nil {
		h.APIVersionLine = av.Line
	}
	if kn != nil {
		h.KindLine = kn.Line
	}
	if _, md := str(n, "metadata"); md != nil {
		h.Name, _ = str(md, "name")
		h.Namespace, _ = str(md, "namespace")
	}
	return h
}
