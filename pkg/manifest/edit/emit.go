package edit

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// style is how a file writes YAML, so that new lines look like their neighbours.
type style struct {
	indent    int  // spaces per nesting level
	seqIndent bool // "key:\n  - a" (true) or "key:\n- a" (false)
	json      bool // the document is JSON
	crlf      bool
}

var defaultStyle = style{indent: 2, seqIndent: true}

// detectStyle guesses the indentation of a parsed document; ok is false when the
// document says nothing about it.
func detectStyle(root *yaml.Node) (st style, ok bool) {
	st = defaultStyle
	var foundIndent, foundSeq bool
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || (foundIndent && foundSeq) {
			return
		}
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch {
				case v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && !foundIndent:
					if d := v.Content[0].Column - k.Column; d > 0 && v.Content[0].Line > k.Line {
						st.indent, foundIndent = d, true
					}
				case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && !foundSeq:
					// The item starts two columns after its dash.
					if it := v.Content[0]; it.Line > k.Line {
						st.seqIndent, foundSeq = it.Column-2 > k.Column, true
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	if root != nil && root.Kind == yaml.MappingNode && root.Style&yaml.FlowStyle != 0 {
		st.json, ok = true, true
	}
	return st, ok || foundIndent || foundSeq
}

// emitter writes nodes as block YAML (or JSON) in a given style. It exists because
// yaml.v3's encoder re-indents lists and cannot write at a given column.
type emitter struct {
	b  strings.Builder
	st style
	// allowed, when set, limits the comment lines written to these (trimmed) ones: when
	// re-rendering part of a file, comments of the lines around it must not be repeated.
	allowed map[string]bool
}

func (e *emitter) pad(col int) { e.b.WriteString(strings.Repeat(" ", col)) }

func (e *emitter) comment(text string, col int) {
	if text == "" || e.st.json {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "" && e.allowed == nil:
			e.b.WriteString("\n")
		case t == "" || (e.allowed != nil && !e.allowed[t]):
		default:
			e.pad(col)
			e.b.WriteString(t + "\n")
		}
	}
}

func lineComment(ns ...*yaml.Node) string {
	for _, n := range ns {
		if n != nil && n.LineComment != "" {
			return " " + strings.TrimSpace(n.LineComment)
		}
	}
	return ""
}

func isBlock(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0
}

// document writes a whole document.
func (e *emitter) document(doc *yaml.Node) string {
	root := doc
	if doc.Kind == yaml.DocumentNode {
		e.comment(doc.HeadComment, 0)
		root = doc.Content[0]
	}
	if e.st.json {
		e.jsonValue(root, 0)
		e.b.WriteString("\n")
		return e.b.String()
	}
	switch {
	case root.Kind == yaml.MappingNode && isBlock(root):
		e.mappingBody(root, 0)
	case root.Kind == yaml.SequenceNode && isBlock(root):
		e.seqBody(root, 0)
	default:
		e.b.WriteString(e.inline(root, false) + "\n")
	}
	if doc.Kind == yaml.DocumentNode {
		e.comment(doc.FootComment, 0)
	}
	return e.b.String()
}

func (e *emitter) mappingBody(n *yaml.Node, col int) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		e.comment(k.HeadComment, col)
		e.pad(col)
		e.b.WriteString(e.scalar(k, false, true) + ":")
		e.value(k, v, col)
		e.comment(k.FootComment, col)
	}
}

// value writes what follows "key:" or "-".
func (e *emitter) value(k, v *yaml.Node, col int) {
	switch {
	case v.Kind == yaml.MappingNode && isBlock(v):
		e.b.WriteString(lineComment(k, v) + "\n")
		e.mappingBody(v, col+e.st.indent)
		e.comment(v.FootComment, col+e.st.indent)
	case v.Kind == yaml.SequenceNode && isBlock(v):
		e.b.WriteString(lineComment(k, v) + "\n")
		c := col
		if e.st.seqIndent {
			c += e.st.indent
		}
		e.seqBody(v, c)
		e.comment(v.FootComment, c)
	case v.Kind == yaml.ScalarNode && e.literal(v):
		e.b.WriteString(" " + blockHeader(v.Value) + lineComment(k, v) + "\n")
		body := strings.TrimRight(v.Value, "\n")
		for _, l := range strings.Split(body, "\n") {
			if l != "" {
				e.pad(col + e.st.indent)
				e.b.WriteString(l)
			}
			e.b.WriteString("\n")
		}
		if trailing := len(v.Value) - len(body); trailing > 1 {
			e.b.WriteString(strings.Repeat("\n", trailing-1)) // kept by "|+"
		}
	default:
		e.b.WriteString(" " + e.inline(v, false) + lineComment(k, v) + "\n")
	}
}

func (e *emitter) seqBody(n *yaml.Node, col int) {
	for _, it := range n.Content {
		e.comment(it.HeadComment, col)
		if !isBlock(it) {
			e.pad(col)
			e.b.WriteString("-")
			e.value(it, it, col)
			e.comment(it.FootComment, col)
			continue
		}
		// Write the item at col+2, then put the dash in front of its first line; the
		// first entry's comment goes above the dash.
		first := it.Content[0]
		e.comment(first.HeadComment, col)
		saved := first.HeadComment
		first.HeadComment = ""
		sub := &emitter{st: e.st, allowed: e.allowed}
		if it.Kind == yaml.MappingNode {
			sub.mappingBody(it, col+2)
		} else {
			sub.seqBody(it, col+2)
		}
		first.HeadComment = saved
		s := sub.b.String()
		e.pad(col)
		if prefix := strings.Repeat(" ", col+2); strings.HasPrefix(s, prefix) && len(s) > col+2 && s[col+2] != ' ' && s[col+2] != '#' {
			e.b.WriteString("- " + s[col+2:])
		} else {
			e.b.WriteString("-" + lineComment(it) + "\n" + s)
		}
		e.comment(it.FootComment, col)
	}
}

// inline writes a scalar, an alias or a flow collection on one line.
func (e *emitter) inline(n *yaml.Node, flow bool) string {
	switch n.Kind {
	case yaml.AliasNode:
		return "*" + n.Value
	case yaml.MappingNode:
		parts := make([]string, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, e.scalar(n.Content[i], true, true)+": "+e.inline(n.Content[i+1], true))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case yaml.SequenceNode:
		parts := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			parts = append(parts, e.inline(c, true))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return e.scalar(n, flow, false)
}

// literal reports whether a string is best written as a "|" block.
func (e *emitter) literal(n *yaml.Node) bool {
	if n.ShortTag() != "!!str" || !strings.Contains(strings.TrimRight(n.Value, "\n"), "\n") {
		return false
	}
	v := n.Value
	if strings.HasPrefix(v, " ") || strings.HasPrefix(v, "\n") || strings.Contains(v, "\r") || !printable(v, true) {
		return false
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.TrimRight(l, " \t") != l {
			return false // trailing blanks would be invisible and easily lost
		}
	}
	return true
}

func (e *emitter) jsonValue(n *yaml.Node, col int) {
	n = yamldoc.Resolve(n)
	ind := e.st.indent
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			e.b.WriteString("{}")
			return
		}
		e.b.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			e.pad(col + ind)
			e.b.WriteString(doubleQuoted(n.Content[i].Value) + ": ")
			e.jsonValue(n.Content[i+1], col+ind)
			if i+2 < len(n.Content) {
				e.b.WriteString(",")
			}
			e.b.WriteString("\n")
		}
		e.pad(col)
		e.b.WriteString("}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			e.b.WriteString("[]")
			return
		}
		e.b.WriteString("[\n")
		for i, c := range n.Content {
			e.pad(col + ind)
			e.jsonValue(c, col+ind)
			if i+1 < len(n.Content) {
				e.b.WriteString(",")
			}
			e.b.WriteString("\n")
		}
		e.pad(col)
		e.b.WriteString("]")
	default:
		e.b.WriteString(jsonScalar(n))
	}
}
