package edit

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// verify parses text and checks that it holds the same data as the node tree.
func verify(text string, want *yaml.Node) error {
	doc, _, msg, err := yamldoc.ParseSegment(yamldoc.Segment{Text: text, Line: 1})
	if err != nil {
		return fmt.Errorf("internal error: the rendered YAML does not parse: %s", msg)
	}
	if doc == nil {
		return fmt.Errorf("internal error: the rendered document is empty")
	}
	got, ok1 := schema.Untyped(yamldoc.Resolve(doc.Content[0]))
	exp, ok2 := schema.Untyped(yamldoc.Resolve(want))
	if !ok1 || !ok2 || !reflect.DeepEqual(got, exp) {
		return fmt.Errorf("internal error: the rendered YAML does not read back as written")
	}
	return nil
}

// editDocument returns the new text of a segment after merging obj into the document (or
// List item), or after deleting it.
func editDocument(seg yamldoc.Segment, item int, obj runtime.Object, del bool) (string, error) {
	doc, _, msg, err := yamldoc.ParseSegment(seg)
	if err != nil {
		return "", fmt.Errorf("the document no longer parses (%s)", msg)
	}
	if doc == nil {
		if del && item == 0 {
			return "", nil
		}
		return "", fmt.Errorf("the document is empty (the file changed since it was read)")
	}
	if del && item == 0 {
		if err := checkIdentity(yamldoc.ReadHeader(doc.Content[0]), obj); err != nil {
			return "", err
		}
		return "", nil
	}
	construct, err := expandAliases(doc)
	if err != nil {
		return "", err
	}
	root := yamldoc.Resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return "", fmt.Errorf("the document is not a mapping")
	}
	node, items, itemsKey, err := locate(root, item, obj)
	if err != nil {
		return "", err
	}
	e := newDocEditor(seg.Text, doc)
	if del {
		if construct != "" {
			return "", anchoredError(construct)
		}
		if t := e.itemTarget(items, node); t != nil {
			e.deleteTarget(t)
		} else {
			e.whole = true
		}
		items.Content = append(items.Content[:item-1:item-1], items.Content[item:]...)
		if len(items.Content) == 0 {
			e.escalate(e.entryTarget(root, itemsKey)) // "items:" alone would read as null
		}
	} else {
		src, typ, err := schema.ObjectNode(obj)
		if err != nil {
			return "", err
		}
		var tg *target
		if item > 0 {
			tg = e.itemTarget(items, node)
			// Items of typed lists may leave apiVersion and kind to the list.
			h := yamldoc.ReadHeader(node)
			for _, k := range []string{"apiVersion", "kind"} {
				if (k == "apiVersion" && h.APIVersion == "") || (k == "kind" && h.Kind == "") {
					removeKey(src, k)
				}
			}
		}
		e.merge(node, src, typ, tg, false)
		if len(e.edits) == 0 && len(e.regions) == 0 && !e.whole {
			return seg.Text, nil // nothing differs: the text stays byte for byte, anchors too
		}
		if construct != "" {
			return "", anchoredError(construct)
		}
	}
	if !e.whole {
		if out, ok := e.apply(); ok && verify(out, root) == nil {
			return out, nil
		}
	}
	out := e.renderWhole(seg, doc)
	if err := verify(out, root); err != nil {
		return "", err
	}
	return out, nil
}

// locate finds the node an edit of a document (item 0) or of a List item applies to, and
// checks that it still holds the object being written.
func locate(root *yaml.Node, item int, obj runtime.Object) (node, items, itemsKey *yaml.Node, err error) {
	node = root
	if item > 0 {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "items" {
				itemsKey, items = root.Content[i], root.Content[i+1]
			}
		}
		if items == nil || items.Kind != yaml.SequenceNode || item > len(items.Content) {
			return nil, nil, nil, fmt.Errorf("no item %d (the file changed since it was read)", item)
		}
		node = items.Content[item-1]
	}
	h := yamldoc.ReadHeader(node)
	if item > 0 {
		// Items of typed lists may leave apiVersion and kind to the list.
		rh := yamldoc.ReadHeader(root)
		if h.APIVersion == "" {
			h.APIVersion = rh.APIVersion
		}
		if h.Kind == "" {
			h.Kind = strings.TrimSuffix(rh.Kind, "List")
		}
	}
	if err := checkIdentity(h, obj); err != nil {
		return nil, nil, nil, err
	}
	return node, items, itemsKey, nil
}

func removeKey(m *yaml.Node, k string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return
		}
	}
}

// renderWhole re-renders a document, keeping its "---" line.
func (e *docEditor) renderWhole(seg yamldoc.Segment, doc *yaml.Node) string {
	var b strings.Builder
	first := 1
	if seg.Sep && len(e.lines) > 0 {
		l := strings.TrimPrefix(e.lineText(1), "\ufeff")
		if rest := strings.TrimSpace(l[3:]); rest == "" || strings.HasPrefix(rest, "#") {
			b.WriteString(l + "\n")
		} else {
			b.WriteString("---\n")
		}
		first = 2
	}
	em := &emitter{st: e.st, allowed: e.commentSet(first, len(e.lines))}
	b.WriteString(em.document(doc))
	return e.nl(b.String())
}

// checkIdentity makes sure the document still holds the object being written.
func checkIdentity(h yamldoc.Header, obj runtime.Object) error {
	if obj == nil {
		return nil
	}
	gvk, name := identity(obj)
	hgv, _ := k8sschema.ParseGroupVersion(h.APIVersion)
	hname := qualified(h.Namespace, h.Name)
	m, err := meta.Accessor(obj)
	sameName := err == nil && h.Name == m.GetName() &&
		(h.Namespace == "" || m.GetNamespace() == "" || h.Namespace == m.GetNamespace())
	if h.Kind != gvk.Kind || (h.APIVersion != "" && hgv.Group != gvk.Group) || !sameName {
		return fmt.Errorf("holds %s %q, not %s %q (the file changed since it was read)", h.Kind, hname, gvk.Kind, name)
	}
	return nil
}

// expandAliases replaces doc's anchors, aliases and merge keys by what they mean, so the
// object can be compared with the text, and names the first of them ("" when none): an
// edit that would change such a document is refused by that name (aliasConstruct), one
// that changes nothing leaves it byte for byte.
func expandAliases(doc *yaml.Node) (string, error) {
	if !hasAliases(doc.Content[0]) {
		return "", nil
	}
	construct := aliasConstruct(doc.Content[0])
	x, err := expand(doc.Content[0])
	if err != nil {
		return "", err
	}
	doc.Content[0] = x
	return construct, nil
}

// anchoredError refuses an edit of a document that uses construct.
func anchoredError(construct string) error {
	return fmt.Errorf("the document uses %s, which %w", construct, errAnchored)
}
