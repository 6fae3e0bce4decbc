package edit

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// The editor merges a rendered object into the node tree of a document and, alongside,
// turns each change into an edit of the document's text: a scalar replaced where it
// stands, an entry or list item inserted or deleted as whole lines. Changes it cannot
// express that way re-render the smallest enclosing block (an entry or item that starts
// its own line), or the whole document. The result is parsed back and compared with the
// merged tree before it is used.

// nodePos is what a node looked like before editing.
type nodePos struct {
	line, col int
	kind      yaml.Kind
	style     yaml.Style
	value     string
	anchor    string
}

type textEdit struct {
	start, end int
	text       string
}

// target is a block that can be deleted or re-rendered on its own: a mapping entry or a
// list item. first..last are its lines, col the column of its key or dash (0-based).
type target struct {
	parent      *yaml.Node
	node        *yaml.Node // the key of an entry, or the item
	item        bool
	first, last int
	col         int
}

type docEditor struct {
	text    string
	lines   []string
	offs    []int
	st      style
	pos     map[*yaml.Node]nodePos
	edits   []textEdit
	regions []*target
	whole   bool
}

func newDocEditor(text string, doc *yaml.Node) *docEditor {
	e := &docEditor{text: text, lines: yamldoc.SplitLines(text), offs: yamldoc.LineOffsets(text), pos: map[*yaml.Node]nodePos{}}
	st, _ := detectStyle(doc.Content[0])
	st.crlf = strings.Contains(text, "\r\n")
	e.st = st
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if _, seen := e.pos[n]; seen {
			return
		}
		e.pos[n] = nodePos{line: n.Line, col: n.Column, kind: n.Kind, style: n.Style, value: n.Value, anchor: n.Anchor}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(doc)
	return e
}

// lineText is line l (1-based) without its line ending.
func (e *docEditor) lineText(l int) string {
	if l < 1 || l > len(e.lines) {
		return ""
	}
	return strings.TrimRight(e.lines[l-1], "\r\n")
}

// byteCol turns a 1-based character column into a byte offset within the line.
func byteCol(line string, col int) int {
	i := 0
	for c := 1; c < col && i < len(line); c++ {
		_, w := utf8.DecodeRuneInString(line[i:])
		i += w
	}
	return i
}

// prefix is the text of a node's line before the node.
func (e *docEditor) prefix(n *yaml.Node) (string, bool) {
	p, ok := e.pos[n]
	if !ok || p.line == 0 {
		return "", false
	}
	l := e.lineText(p.line)
	return l[:byteCol(l, p.col)], true
}

var dashPrefix = regexp.MustCompile(`^( *)- +$`)

func (e *docEditor) maxLine(n *yaml.Node) int {
	m := 0
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if p, ok := e.pos[n]; ok && p.line > m {
			m = p.line
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return m
}

// scanEnd finds the last line of a block that starts on line first at column col0:
// every following line indented deeper, skipping comments and blank lines at its end.
func (e *docEditor) scanEnd(first, col0 int, v *yaml.Node, compactSeq bool) int {
	vp := e.pos[v]
	blockScalar := vp.kind == yaml.ScalarNode && vp.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	end := first
	for j := first + 1; j <= len(e.lines); j++ {
		l := e.lineText(j)
		if yamldoc.IsSeparator(l) || strings.HasPrefix(l, "...") {
			break
		}
		t := strings.TrimLeft(l, " ")
		if t == "" {
			continue
		}
		ind := len(l) - len(t)
		if ind > col0 && (blockScalar || t[0] != '#') {
			end = j
			continue
		}
		if t[0] == '#' {
			continue
		}
		if ind == col0 && compactSeq && (t == "-" || strings.HasPrefix(t, "- ")) {
			end = j
			continue
		}
		break
	}
	return max(end, e.maxLine(v))
}

// entryRange is the lines of a mapping entry; the key need not start its line.
func (e *docEditor) entryRange(parent, k *yaml.Node) *target {
	kp, ok := e.pos[k]
	if !ok || kp.line == 0 || parent.Style&yaml.FlowStyle != 0 {
		return nil
	}
	v := valueOf(parent, k)
	if v == nil {
		return nil
	}
	vp := e.pos[v]
	compact := vp.kind == yaml.SequenceNode && vp.style&yaml.FlowStyle == 0
	return &target{parent: parent, node: k, first: kp.line, col: kp.col - 1, last: e.scanEnd(kp.line, kp.col-1, v, compact)}
}

// entryTarget is an entry that starts its own line, so it can be cut out as lines.
func (e *docEditor) entryTarget(parent, k *yaml.Node) *target {
	pre, ok := e.prefix(k)
	if !ok || strings.TrimLeft(pre, " ") != "" {
		return nil
	}
	return e.entryRange(parent, k)
}

// itemTarget is a list item whose dash starts its line.
func (e *docEditor) itemTarget(parent, it *yaml.Node) *target {
	if parent.Style&yaml.FlowStyle != 0 {
		return nil
	}
	pre, ok := e.prefix(it)
	if !ok {
		return nil
	}
	m := dashPrefix.FindStringSubmatch(pre)
	if m == nil {
		return nil
	}
	p := e.pos[it]
	col := len(m[1])
	return &target{parent: parent, node: it, item: true, first: p.line, col: col, last: e.scanEnd(p.line, col, it, false)}
}

func valueOf(m, k *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] == k {
			return m.Content[i+1]
		}
	}
	return nil
}

func (e *docEditor) escalate(t *target) {
	if t == nil || e.st.json {
		e.whole = true
		return
	}
	for _, r := range e.regions {
		if r.node == t.node {
			return
		}
	}
	e.regions = append(e.regions, t)
}

func (e *docEditor) nl(s string) string {
	if e.st.crlf {
		return strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

func (e *docEditor) lineStart(l int) int { return e.offs[l-1] }

// lineEnd is the offset just past line l and its line ending.
func (e *docEditor) lineEnd(l int) int {
	if l >= len(e.offs) {
		return len(e.text)
	}
	return e.offs[l]
}

// deleteTarget cuts out an entry or item with the comment lines directly above it.
func (e *docEditor) deleteTarget(t *target) {
	first := t.first
	if t.node.HeadComment != "" {
		for first > 1 {
			l := e.lineText(first - 1)
			tl := strings.TrimLeft(l, " ")
			if !strings.HasPrefix(tl, "#") || len(l)-len(tl) != t.col {
				break
			}
			first--
		}
	}
	e.edits = append(e.edits, textEdit{start: e.lineStart(first), end: e.lineEnd(t.last)})
}

// insertAfter inserts lines after a target and after the comments that trail it at a
// deeper indentation (they are about its content, not about what follows).
func (e *docEditor) insertAfter(t *target, text string) {
	last := t.last
	for j := t.last + 1; j <= len(e.lines); j++ {
		l := e.lineText(j)
		tl := strings.TrimLeft(l, " ")
		if tl == "" {
			continue
		}
		if !strings.HasPrefix(tl, "#") || len(l)-len(tl) <= t.col {
			break
		}
		last = j
	}
	at := e.lineEnd(last)
	if at == len(e.text) && !strings.HasSuffix(e.text, "\n") {
		text = "\n" + text
	}
	e.edits = append(e.edits, textEdit{start: at, end: at, text: e.nl(text)})
}

// scalarEdit replaces a scalar's text where it stands.
func (e *docEditor) scalarEdit(n *yaml.Node, t *target, flow bool) {
	p, ok := e.pos[n]
	em := &emitter{st: e.st}
	if !ok || p.line == 0 || p.anchor != "" || p.style&yaml.TaggedStyle != 0 || (!e.st.json && em.literal(n)) {
		e.escalate(t)
		return
	}
	line := e.lineText(p.line)
	start := byteCol(line, p.col)
	rest := line[start:]
	end := -1
	switch {
	case p.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
	case p.style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(rest) && strings.HasPrefix(rest, `"`); i++ {
			if rest[i] == '\\' {
				i++
			} else if rest[i] == '"' {
				end = i + 1
				break
			}
		}
	case p.style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(rest) && strings.HasPrefix(rest, "'"); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				end = i + 1
				break
			}
		}
	default:
		if !strings.Contains(p.value, "\n") && p.value != "" && strings.HasPrefix(rest, p.value) {
			end = len(p.value)
		}
	}
	if end < 0 {
		e.escalate(t)
		return
	}
	text := em.scalar(n, flow, false)
	if strings.Contains(text, "\n") {
		e.escalate(t)
		return
	}
	off := e.lineStart(p.line) + start
	e.edits = append(e.edits, textEdit{start: off, end: off + end, text: text})
}
