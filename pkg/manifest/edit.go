package manifest

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
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
	e := &docEditor{text: text, lines: splitLines(text), offs: lineOffsets(text), pos: map[*yaml.Node]nodePos{}}
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
		if isSeparator(l) || strings.HasPrefix(l, "...") {
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

func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func childType(t reflect.Type, k string) reflect.Type {
	t = derefType(t)
	if t == nil || t == quantityType || t == timeType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if f, ok := structFields(t).byName[k]; ok {
			return f.typ
		}
	case reflect.Map:
		return t.Elem()
	}
	return nil
}

func elemType(t reflect.Type) reflect.Type {
	t = derefType(t)
	if t != nil && t.Kind() == reflect.Slice {
		return t.Elem()
	}
	return nil
}

// scalarEqual reports whether two scalars mean the same for a field of type t, so that
// "16384Mi" is not rewritten as "16Gi" nor 0x10 as 16.
func scalarEqual(d, s *yaml.Node, t reflect.Type) bool {
	t = derefType(t)
	switch t {
	case quantityType:
		a, err1 := resource.ParseQuantity(strings.TrimSpace(d.Value))
		b, err2 := resource.ParseQuantity(strings.TrimSpace(s.Value))
		if err1 == nil && err2 == nil {
			return a.Cmp(b) == 0
		}
	case timeType:
		a, err1 := time.Parse(time.RFC3339, d.Value)
		b, err2 := time.Parse(time.RFC3339, s.Value)
		if err1 == nil && err2 == nil {
			return a.Equal(b)
		}
	}
	dt, st := d.ShortTag(), s.ShortTag()
	isText := func(tag string) bool { return tag == "!!str" || tag == "!!timestamp" || tag == "!!binary" }
	if isText(dt) && isText(st) {
		return d.Value == s.Value
	}
	if dt != st {
		if !(dt == "!!int" || dt == "!!float") || !(st == "!!int" || st == "!!float") {
			return false
		}
	}
	c := newConverter(false)
	a, ok1 := c.scalar(d, nil)
	b, ok2 := c.scalar(s, nil)
	return ok1 && ok2 && jsonEqual(a, b)
}

func setScalar(d, s *yaml.Node) {
	style := yaml.Style(0)
	if d.ShortTag() == "!!str" && s.ShortTag() == "!!str" {
		style = d.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle)
	}
	d.Tag, d.Value, d.Style = s.Tag, s.Value, style
}

// replaceNode turns d into a copy of s, keeping d's comments.
func replaceNode(d, s *yaml.Node) {
	hc, lc, fc := d.HeadComment, d.LineComment, d.FootComment
	*d = *s
	d.HeadComment, d.LineComment, d.FootComment = hc, lc, fc
}

// keepUnsourced decides whether a key the new object does not have stays in the file:
// fields the Go type does not know (partially typed kinds) and empty values that decode
// the same as an absent field.
func keepUnsourced(t reflect.Type, k string, v *yaml.Node) bool {
	t = derefType(t)
	if t == nil || t.Kind() != reflect.Struct || t == quantityType || t == timeType {
		return false
	}
	f, known := structFields(t).byName[k]
	if !known {
		return true
	}
	v = resolve(v)
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return true
	}
	ft := f.typ
	if ft.Kind() == reflect.Pointer {
		return false // a nil pointer is a deliberate "unset"
	}
	switch {
	case v.Kind == yaml.MappingNode && len(v.Content) == 0:
		return ft.Kind() == reflect.Struct || ft.Kind() == reflect.Map
	case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		return ft.Kind() == reflect.Slice
	case v.Kind == yaml.ScalarNode && f.omitEmpty:
		c := newConverter(false)
		x, ok := c.scalar(v, nil)
		return ok && isZero(x) && sameKind(x, ft)
	}
	return false
}

// untypedInside reports whether mapping v holds a key that the struct type t does not
// know, itself or in a field of a (non-pointer) struct type, at any depth.
func untypedInside(t reflect.Type, v *yaml.Node) bool {
	v = resolve(v)
	if t == nil || t.Kind() != reflect.Struct || t == quantityType || t == timeType ||
		reflect.PointerTo(t).Implements(unmarshalerType) || v == nil || v.Kind != yaml.MappingNode {
		return false
	}
	fields := structFields(t).byName
	for i := 0; i+1 < len(v.Content); i += 2 {
		f, known := fields[v.Content[i].Value]
		if !known || untypedInside(f.typ, v.Content[i+1]) {
			return true
		}
	}
	return false
}

func sameKind(x any, t reflect.Type) bool {
	switch x.(type) {
	case string:
		return t.Kind() == reflect.String
	case bool:
		return t.Kind() == reflect.Bool
	case int64, float64:
		return t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64
	}
	return false
}

func (e *docEditor) merge(d, s *yaml.Node, t reflect.Type, tg *target, flow bool) {
	t = derefType(t)
	if d.Kind == yaml.ScalarNode && s.Kind == yaml.ScalarNode {
		if scalarEqual(d, s, t) {
			return
		}
		setScalar(d, s)
		e.scalarEdit(d, tg, flow)
		return
	}
	if d.Kind != s.Kind {
		replaceNode(d, s)
		e.escalate(tg)
		return
	}
	switch d.Kind {
	case yaml.MappingNode:
		e.mergeMapping(d, s, t, tg, flow)
	case yaml.SequenceNode:
		e.mergeSequence(d, s, t, tg, flow)
	}
}

func (e *docEditor) mergeMapping(d, s *yaml.Node, t reflect.Type, tg *target, flow bool) {
	isFlow := flow || d.Style&yaml.FlowStyle != 0
	src := map[string]int{}
	for j := 0; j+1 < len(s.Content); j += 2 {
		src[s.Content[j].Value] = j
	}
	orig := append([]*yaml.Node(nil), d.Content...)
	used := map[string]bool{}
	var out []*yaml.Node
	for i := 0; i+1 < len(orig); i += 2 {
		k, v := orig[i], orig[i+1]
		if j, ok := src[k.Value]; ok && !used[k.Value] {
			used[k.Value] = true
			ct := tg
			if !isFlow {
				if et := e.entryTarget(d, k); et != nil {
					ct = et
				}
			}
			e.merge(v, s.Content[j+1], childType(t, k.Value), ct, isFlow)
			out = append(out, k, v)
			continue
		}
		if keepUnsourced(t, k.Value, v) {
			used[k.Value] = true
			out = append(out, k, v)
			continue
		}
		if ft := childType(t, k.Value); ft != nil && ft.Kind() == reflect.Struct && v.Kind == yaml.MappingNode && untypedInside(ft, v) {
			// A struct field whose zero value renders as nothing, holding fields the Go
			// type does not know (partially typed kinds): remove the known ones, keep the
			// others, rather than lose them with the whole block.
			used[k.Value] = true
			ct := tg
			if !isFlow {
				if et := e.entryTarget(d, k); et != nil {
					ct = et
				}
			}
			e.merge(v, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, ft, ct, isFlow)
			out = append(out, k, v)
			continue
		}
		if et := e.entryTarget(d, k); et != nil && !isFlow {
			e.deleteTarget(et)
		} else {
			e.escalate(tg)
		}
	}
	var added []*yaml.Node
	for j := 0; j+1 < len(s.Content); j += 2 {
		if !used[s.Content[j].Value] {
			used[s.Content[j].Value] = true
			added = append(added, s.Content[j], s.Content[j+1])
		}
	}
	if len(added) > 0 {
		var last *target
		if !isFlow && len(orig) > 0 {
			last = e.entryRange(d, orig[len(orig)-2])
		}
		if last == nil {
			e.escalate(tg)
		} else {
			em := &emitter{st: e.st}
			em.mappingBody(&yaml.Node{Kind: yaml.MappingNode, Content: added}, last.col)
			e.insertAfter(last, em.b.String())
		}
	}
	out = append(out, added...)
	if len(out) == 0 && len(orig) > 0 {
		e.escalate(tg) // an emptied block mapping must become "{}"
	}
	d.Content = out
}

// itemNames returns the name of every item when all are mappings with a unique string
// name, so lists like environments and access.users match by name, not position.
func itemNames(n *yaml.Node) ([]string, bool) {
	names := make([]string, 0, len(n.Content))
	seen := map[string]bool{}
	for _, it := range n.Content {
		it = resolve(it)
		if it == nil || it.Kind != yaml.MappingNode {
			return nil, false
		}
		name := ""
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value == "name" {
				if v := resolve(it.Content[i+1]); v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
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

func (e *docEditor) mergeSequence(d, s *yaml.Node, t reflect.Type, tg *target, flow bool) {
	isFlow := flow || d.Style&yaml.FlowStyle != 0
	elem := elemType(t)
	orig := append([]*yaml.Node(nil), d.Content...)
	type pair struct{ d, s *yaml.Node }
	var pairs []pair
	var result, added, removed []*yaml.Node
	reorder := false
	dn, ok1 := itemNames(d)
	sn, ok2 := itemNames(s)
	if ok1 && ok2 && len(orig) > 0 && len(s.Content) > 0 {
		idx := map[string]int{}
		for i, n := range dn {
			idx[n] = i
		}
		matched := make([]bool, len(orig))
		last, sawNew := -1, false
		for j, n := range sn {
			if i, ok := idx[n]; ok {
				if i < last || sawNew {
					reorder = true
				}
				last = i
				matched[i] = true
				pairs = append(pairs, pair{orig[i], s.Content[j]})
				result = append(result, orig[i])
			} else {
				sawNew = true
				added = append(added, s.Content[j])
				result = append(result, s.Content[j])
			}
		}
		for i, m := range matched {
			if !m {
				removed = append(removed, orig[i])
			}
		}
	} else {
		for j, it := range s.Content {
			if j < len(orig) {
				pairs = append(pairs, pair{orig[j], it})
				result = append(result, orig[j])
			} else {
				added = append(added, it)
				result = append(result, it)
			}
		}
		if len(orig) > len(s.Content) {
			removed = orig[len(s.Content):]
		}
	}
	for _, p := range pairs {
		ct := tg
		if !isFlow && !reorder {
			if it := e.itemTarget(d, p.d); it != nil {
				ct = it
			}
		}
		e.merge(p.d, p.s, elem, ct, isFlow)
	}
	switch {
	case reorder || (isFlow && len(added)+len(removed) > 0) || (len(result) == 0 && len(orig) > 0):
		e.escalate(tg)
	default:
		for _, r := range removed {
			if it := e.itemTarget(d, r); it != nil {
				e.deleteTarget(it)
			} else {
				e.escalate(tg)
			}
		}
		if len(added) > 0 {
			var last *target
			if len(orig) > 0 {
				last = e.itemTarget(d, orig[len(orig)-1])
			}
			if last == nil {
				e.escalate(tg)
			} else {
				em := &emitter{st: e.st}
				em.seqBody(&yaml.Node{Kind: yaml.SequenceNode, Content: added}, last.col)
				e.insertAfter(last, em.b.String())
			}
		}
	}
	d.Content = result
}

// commentSet is the set of comment lines in lines first..last.
func (e *docEditor) commentSet(first, last int) map[string]bool {
	set := map[string]bool{}
	for l := first; l <= last; l++ {
		if t := strings.TrimSpace(e.lineText(l)); strings.HasPrefix(t, "#") {
			set[t] = true
		}
	}
	return set
}

// renderRegion re-renders a target from the merged tree.
func (e *docEditor) renderRegion(r *target) textEdit {
	em := &emitter{st: e.st, allowed: e.commentSet(r.first, r.last)}
	if r.item {
		hc := r.node.HeadComment
		r.node.HeadComment = ""
		em.seqBody(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{r.node}}, r.col)
		r.node.HeadComment = hc
	} else {
		hc := r.node.HeadComment
		r.node.HeadComment = ""
		em.mappingBody(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{r.node, valueOf(r.parent, r.node)}}, r.col)
		r.node.HeadComment = hc
	}
	text := em.b.String()
	end := e.lineEnd(r.last)
	if end == len(e.text) && !strings.HasSuffix(e.text, "\n") {
		text = strings.TrimSuffix(text, "\n")
	}
	return textEdit{start: e.lineStart(r.first), end: end, text: e.nl(text)}
}

// apply builds the new text from the edits; ok is false when they collide.
func (e *docEditor) apply() (string, bool) {
	edits := append([]textEdit(nil), e.edits...)
	var regions []textEdit
	for _, r := range e.regions {
		regions = append(regions, e.renderRegion(r))
	}
	// Keep only outermost regions, and drop edits inside them.
	sort.SliceStable(regions, func(i, j int) bool {
		if regions[i].start != regions[j].start {
			return regions[i].start < regions[j].start
		}
		return regions[i].end > regions[j].end
	})
	var outer []textEdit
	for _, r := range regions {
		if len(outer) > 0 && r.start < outer[len(outer)-1].end {
			continue
		}
		outer = append(outer, r)
	}
	var kept []textEdit
	for _, ed := range edits {
		inside := false
		for _, r := range outer {
			in := ed.start >= r.start && ed.end <= r.end
			if ed.start == ed.end {
				in = ed.start > r.start && ed.start < r.end // an insertion at an edge is outside
			}
			if in {
				inside = true
				break
			}
		}
		if !inside {
			kept = append(kept, ed)
		}
	}
	all := append(kept, outer...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].start == all[i].end && all[j].start != all[j].end
	})
	var b strings.Builder
	cur := 0
	for _, ed := range all {
		if ed.start < cur {
			return "", false
		}
		b.WriteString(e.text[cur:ed.start])
		b.WriteString(ed.text)
		cur = ed.end
	}
	b.WriteString(e.text[cur:])
	return b.String(), true
}

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
