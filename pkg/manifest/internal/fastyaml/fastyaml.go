// Package fastyaml parses the plain subset of YAML that manifests are written in (block
// mappings and sequences, single-line plain and quoted scalars, literal and folded block
// scalars, comments) into the same node tree yaml.v3's Decoder builds, several times
// faster. Anything outside that subset it declines rather than guesses at, and the caller
// parses the document with yaml.v3 instead, which then reports any error as it always has.
//
// The tree it returns carries no comments (HeadComment, LineComment and FootComment are
// empty): it is for reading documents, not for editing them.
package fastyaml

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds nesting; deeper documents are left to yaml.v3 (and the loader's own
// bound on depth).
const maxDepth = 48

// maxKeyLen: yaml.v3 refuses a simple key longer than 1024 bytes.
const maxKeyLen = 1000

// Parse returns the document node of text, one YAML document, exactly as yaml.v3's
// Decoder gives it but without comments, or false when text is outside the subset this
// package reads (including text that is not valid YAML, and text holding no document).
func Parse(text string) (*yaml.Node, bool) {
	if !plainText(text) {
		return nil, false
	}
	p := &parser{text: text, slab: make([]yaml.Node, 0, estimateNodes(text))}
	doc, ok := p.document()
	if !ok {
		return nil, false
	}
	return doc, true
}

// estimateNodes guesses the nodes of a document from its lines (about two a line), so
// that one slab usually holds them all.
func estimateNodes(text string) int {
	return 2 + 2*strings.Count(text, "\n")
}

// plainText reports text free of what this package leaves to yaml.v3 wherever it occurs:
// tabs, carriage returns, control characters, a byte order mark, characters YAML takes as
// line breaks (NEL, U+2028, U+2029), characters outside the Basic Multilingual Plane,
// invalid UTF-8, and lines starting with a directive (%) or a document end marker (...).
func plainText(text string) bool {
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		if lineStart {
			if c == '%' || (c == '.' && len(text)-i >= 3 && text[i+1] == '.' && text[i+2] == '.') {
				return false
			}
		}
		lineStart = c == '\n'
		if c < 0x80 {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError || size == 4 || r < 0xa0 || r == 0x2028 || r == 0x2029 ||
			(r >= 0xd800 && r <= 0xdfff) || r == 0xfeff || r > 0xfffd {
			return false
		}
		i += size
	}
	return true
}

type parser struct {
	text string
	// The current line: it starts at pos, its content (without "\n") ends at eol, it is
	// line number line (1-based) and starts with ind spaces. eof: no line left.
	pos, eol, line, ind int
	eof                 bool

	slab  []yaml.Node
	stack []*yaml.Node // children of the collections being built
	ptrs  []*yaml.Node // Content slices are cut from here
}

func (p *parser) node(kind yaml.Kind, tag, value string, style yaml.Style, line, col int) *yaml.Node {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]yaml.Node, 0, 64)
	}
	p.slab = append(p.slab, yaml.Node{Kind: kind, Tag: tag, Value: value, Style: style, Line: line, Column: col})
	return &p.slab[len(p.slab)-1]
}

// content gives n the children pushed on the stack since mark.
func (p *parser) content(n *yaml.Node, mark int) {
	kids := p.stack[mark:]
	if len(kids) > 0 {
		if cap(p.ptrs)-len(p.ptrs) < len(kids) {
			p.ptrs = make([]*yaml.Node, 0, max(256, len(kids)))
		}
		start := len(p.ptrs)
		p.ptrs = append(p.ptrs, kids...)
		n.Content = p.ptrs[start:len(p.ptrs):len(p.ptrs)]
	}
	p.stack = p.stack[:mark]
}

// setLine makes the line starting at pos current.
func (p *parser) setLine(pos, line int) {
	p.pos, p.line = pos, line
	if pos >= len(p.text) {
		p.eof, p.eol, p.ind = true, pos, 0
		return
	}
	p.eof = false
	e := len(p.text)
	if i := strings.IndexByte(p.text[pos:], '\n'); i >= 0 {
		e = pos + i
	}
	p.eol = e
	i := pos
	for i < e && p.text[i] == ' ' {
		i++
	}
	p.ind = i - pos
}

// next moves to the line after the current one.
func (p *parser) next() {
	if p.eol >= len(p.text) {
		p.setLine(len(p.text), p.line+1)
		return
	}
	p.setLine(p.eol+1, p.line+1)
}

// blankOrComment reports a current line holding only spaces or a comment.
func (p *parser) blankOrComment() bool {
	i := p.pos + p.ind
	return i == p.eol || p.text[i] == '#'
}

// skip moves past blank and comment lines to the next line with content (or eof).
func (p *parser) skip() {
	for !p.eof && p.blankOrComment() {
		p.next()
	}
}

// col returns the column (1-based) yaml.v3 gives byte c of the current line: it counts
// characters, not bytes.
func (p *parser) col(c int) int {
	prefix := p.text[p.pos : p.pos+c]
	for i := 0; i < len(prefix); i++ {
		if prefix[i] >= utf8.RuneSelf {
			return utf8.RuneCountInString(prefix) + 1
		}
	}
	return c + 1
}

// at returns the byte at column col of the current line, or 0 past its end.
func (p *parser) at(col int) byte {
	if i := p.pos + col; i < p.eol {
		return p.text[i]
	}
	return 0
}

func (p *parser) document() (*yaml.Node, bool) {
	p.setLine(0, 1)
	explicit := false
	if p.at(0) == '-' && p.at(1) == '-' && p.at(2) == '-' {
		for i := p.pos + 3; i < p.eol; i++ {
			if p.text[i] != ' ' {
				return nil, false
			}
		}
		explicit = true
		p.next()
	}
	p.skip()
	if p.eof {
		return nil, false
	}
	var root *yaml.Node
	var ok bool
	col := p.ind
	switch {
	case p.dash(col):
		root, ok = p.sequence(col, 0)
	default:
		if _, ok = p.keyAt(col); !ok {
			return nil, false
		}
		root, ok = p.mapping(col, 0)
	}
	if !ok || !p.eof {
		return nil, false
	}
	doc := p.node(yaml.DocumentNode, "", "", 0, root.Line, root.Column)
	if explicit {
		doc.Line, doc.Column = 1, 1
	}
	doc.Content = []*yaml.Node{root}
	return doc, true
}

// dash reports a sequence entry indicator at column col of the current line.
func (p *parser) dash(col int) bool {
	if p.at(col) != '-' {
		return false
	}
	c := p.at(col + 1)
	return c == 0 || c == ' '
}

// keyAt reports a plain key at column col of the current line, followed by ':' and a
// space or the end of the line; after is the column past the ':'.
func (p *parser) keyAt(col int) (after int, ok bool) {
	if !plainStart(p.at(col), p.at(col+1)) {
		return 0, false
	}
	for i := p.pos + col; i < p.eol; i++ {
		switch p.text[i] {
		case ':':
			if i+1 == p.eol || p.text[i+1] == ' ' {
				if i-p.pos-col > maxKeyLen {
					return 0, false
				}
				return i + 1 - p.pos, true
			}
		case '#':
			if p.text[i-1] == ' ' {
				return 0, false
			}
		}
	}
	return 0, false
}

// plainStart reports whether a plain scalar may start with c followed by d: not with an
// indicator, except '-' before a character that is not a space. Quoted keys, '?' and ':'
// starts are left to yaml.v3.
func plainStart(c, d byte) bool {
	switch c {
	case 0, ' ', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-':
		return d != 0 && d != ' '
	}
	return true
}

// block parses the collection starting at column col of the current line.
func (p *parser) block(col, depth int) (*yaml.Node, bool) {
	if p.dash(col) {
		return p.sequence(col, depth)
	}
	if _, ok := p.keyAt(col); ok {
		return p.mapping(col, depth)
	}
	return nil, false
}

func (p *parser) mapping(col, depth int) (*yaml.Node, bool) {
	if depth > maxDepth {
		return nil, false
	}
	m := p.node(yaml.MappingNode, "!!map", "", 0, p.line, p.col(col))
	mark := len(p.stack)
	for {
		after, ok := p.keyAt(col)
		if !ok {
			return nil, false
		}
		end := after - 1
		for end > col && p.at(end-1) == ' ' {
			end--
		}
		kv := p.text[p.pos+col : p.pos+end]
		tag, ok := resolve(kv)
		if !ok {
			return nil, false
		}
		k := p.node(yaml.ScalarNode, tag, clone(kv), 0, p.line, p.col(col))
		p.stack = append(p.stack, k)
		v, ok := p.value(after, col, depth+1, true)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, v)
		if p.eof || p.ind < col {
			break
		}
		if p.ind > col {
			return nil, false
		}
	}
	p.content(m, mark)
	return m, true
}

func (p *parser) sequence(col, depth int) (*yaml.Node, bool) {
	if depth > maxDepth {
		return nil, false
	}
	s := p.node(yaml.SequenceNode, "!!seq", "", 0, p.line, p.col(col))
	mark := len(p.stack)
	for {
		if !p.dash(col) {
			return nil, false
		}
		v, ok := p.value(col+1, col, depth+1, false)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, v)
		if p.eof || p.ind < col {
			break
		}
		if p.ind > col {
			return nil, false
		}
		if !p.dash(col) {
			break // the next key of a mapping at this column (a sequence as Kubernetes writes it)
		}
	}
	p.content(s, mark)
	return s, true
}

// value parses the node after an indicator (':' of a key or '-' of an entry) ending at
// column at-1 of the current line, in a collection at column col. It leaves the parser on
// the next line with content.
func (p *parser) value(at, col, depth int, inMapping bool) (*yaml.Node, bool) {
	c := at
	for p.at(c) == ' ' {
		c++
	}
	line := p.line
	if p.at(c) == 0 || p.at(c) == '#' {
		nullCol := p.col(at)
		// Nothing on this line: the value is the collection on the next lines, or empty.
		p.next()
		p.skip()
		if !p.eof && (p.ind > col || (inMapping && p.ind == col && p.dash(col))) {
			return p.block(p.ind, depth)
		}
		return p.node(yaml.ScalarNode, "!!null", "", 0, line, nullCol), true
	}
	if depth > maxDepth {
		return nil, false
	}
	if !inMapping {
		// An entry of a sequence may start a collection on its own line.
		if p.dash(c) {
			return p.sequence(c, depth)
		}
		if _, ok := p.keyAt(c); ok {
			return p.mapping(c, depth)
		}
	}
	var n *yaml.Node
	switch ch := p.at(c); ch {
	case '|', '>':
		return p.blockScalar(c, col)
	case '"':
		end := -1
		for i := p.pos + c + 1; i < p.eol; i++ {
			if p.text[i] == '\\' {
				return nil, false
			}
			if p.text[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, false
		}
		n = p.node(yaml.ScalarNode, "!!str", clone(p.text[p.pos+c+1:end]), yaml.DoubleQuotedStyle, line, p.col(c))
		if !p.lineEnd(end + 1 - p.pos) {
			return nil, false
		}
	case '\'':
		var b []byte
		end := -1
		for i := p.pos + c + 1; i < p.eol; i++ {
			if p.text[i] == '\'' {
				if i+1 < p.eol && p.text[i+1] == '\'' {
					if b == nil {
						b = append(b, p.text[p.pos+c+1:i]...)
					}
					b = append(b, '\'')
					i++
					continue
				}
				end = i
				break
			}
			if b != nil {
				b = append(b, p.text[i])
			}
		}
		if end < 0 {
			return nil, false
		}
		v := string(b)
		if b == nil {
			v = clone(p.text[p.pos+c+1 : end])
		}
		n = p.node(yaml.ScalarNode, "!!str", v, yaml.SingleQuotedStyle, line, p.col(c))
		if !p.lineEnd(end + 1 - p.pos) {
			return nil, false
		}
	case '[', '{':
		if p.at(c+1) != ch+2 || !p.lineEnd(c+2) { // ']' and '}' follow '[' and '{' by two
			return nil, false
		}
		kind, tag := yaml.SequenceNode, "!!seq"
		if ch == '{' {
			kind, tag = yaml.MappingNode, "!!map"
		}
		n = p.node(kind, tag, "", yaml.FlowStyle, line, p.col(c))
	default:
		if !plainStart(ch, p.at(c+1)) {
			return nil, false
		}
		end := p.eol
		for i := p.pos + c; i < p.eol; i++ {
			if p.text[i] == ':' && (i+1 == p.eol || p.text[i+1] == ' ') {
				return nil, false // a key where a value goes, or an error: yaml.v3 says which
			}
			if p.text[i] == '#' && p.text[i-1] == ' ' {
				end = i
				break
			}
		}
		for end > p.pos+c && p.text[end-1] == ' ' {
			end--
		}
		v := p.text[p.pos+c : end]
		tag, ok := resolve(v)
		if !ok {
			return nil, false
		}
		n = p.node(yaml.ScalarNode, tag, clone(v), 0, line, p.col(c))
	}
	p.next()
	p.skip()
	return n, true
}

// lineEnd reports whether the current line holds nothing but spaces and a comment from
// column col on.
func (p *parser) lineEnd(col int) bool {
	for i := p.pos + col; i < p.eol; i++ {
		switch p.text[i] {
		case ' ':
		case '#':
			return i > p.pos+col || (i > 0 && p.text[i-1] == ' ')
		default:
			return false
		}
	}
	return true
}

// blockScalar parses a literal (|) or folded (>) scalar whose header is at column c of the
// current line, in a collection at column col.
func (p *parser) blockScalar(c, col int) (*yaml.Node, bool) {
	folded := p.at(c) == '>'
	line, column := p.line, p.col(c)
	chomp := byte(0)
	h := c + 1
	if ch := p.at(h); ch == '-' || ch == '+' {
		chomp = ch
		h++
	}
	if ch := p.at(h); ch != 0 && ch != ' ' {
		return nil, false // an indentation indicator, or text yaml.v3 refuses
	}
	if !p.lineEnd(h) {
		return nil, false
	}
	style := yaml.LiteralStyle
	if folded {
		style = yaml.FoldedStyle
	}
	var b []byte
	ind := -1
	breaks := 0           // empty lines since the last content line, ended by "\n"
	leadingBreak := false // the last content line ended with "\n"
	leadingBlank := false // the last content line was more indented
	p.next()
	for !p.eof {
		if p.pos+p.ind == p.eol { // spaces only
			if ind >= 0 && p.ind > ind {
				return nil, false // content made of spaces
			}
			if ind < 0 && p.ind > col+1 {
				return nil, false // may set the indentation by itself: left to yaml.v3
			}
			if p.eol < len(p.text) {
				breaks++
			}
			p.next()
			continue
		}
		if ind < 0 {
			if p.ind <= col {
				return nil, false // an empty scalar
			}
			ind = p.ind
		} else if p.ind < ind {
			break
		}
		content := p.text[p.pos+ind : p.eol]
		trailingBlank := content[0] == ' '
		if folded && !leadingBlank && !trailingBlank && leadingBreak {
			if breaks == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		leadingBlank = trailingBlank
		b = append(b, content...)
		leadingBreak = p.eol < len(p.text)
		p.next()
	}
	if ind < 0 {
		return nil, false
	}
	if chomp != '-' && leadingBreak {
		b = append(b, '\n')
	}
	if chomp == '+' {
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
	}
	n := p.node(yaml.ScalarNode, "!!str", string(b), style, line, column)
	p.skip()
	return n, true
}

// clone copies s, so that nodes do not keep the whole text alive (yaml.v3 gives each
// value a string of its own too).
func clone(s string) string {
	if s == "" {
		return ""
	}
	return string([]byte(s))
}

// resolve gives the tag yaml.v3 resolves a plain scalar to, for the scalars whose tag is
// certain; false for the others (numbers other than decimal integers, timestamps, merge
// keys, special floats), which are left to yaml.v3.
func resolve(s string) (string, bool) {
	if s == "" {
		return "!!null", true
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool", true
	case "~", "null", "Null", "NULL":
		return "!!null", true
	}
	switch c := s[0]; {
	case c == '<':
		return "", false // "<<" is a merge key; other strings starting so are rare
	case c == '.':
		// yaml.v3 tries these as floats (.5, .inf): a string for certain only with a
		// character no float holds.
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-', c == '_',
				c == 'i', c == 'I', c == 'n', c == 'N', c == 'f', c == 'F', c == 'a', c == 'A':
			default:
				return "!!str", true
			}
		}
		return "", false
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		return resolveNumeric(s)
	}
	// yaml.v3 looks other scalars up only among the words above: they are strings.
	return "!!str", true
}

// resolveNumeric handles plain scalars starting with a digit or a sign, which yaml.v3
// tries as a timestamp, an integer in any base (with underscores), and a float.
func resolveNumeric(s string) (string, bool) {
	digits := s
	if s[0] == '+' || s[0] == '-' {
		digits = s[1:]
	}
	if decimal(digits) {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return "!!int", true
		}
		return "", false
	}
	// A string for certain: a character no number or timestamp holds (any but digits,
	// hexadecimal letters, base prefixes, signs, underscores, dots and the timestamp's
	// separators).
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F',
			c == 'x', c == 'X', c == 'o', c == 'O', c == '_', c == '+', c == '-', c == '.',
			c == ':', c == ' ', c == 't', c == 'T', c == 'z', c == 'Z':
		default:
			return "!!str", true
		}
	}
	// Digits and two dots or more (an IP address): no integer, float or timestamp.
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			dots++
		case c < '0' || c > '9':
			return "", false
		}
	}
	if dots >= 2 {
		return "!!str", true
	}
	return "", false
}

// decimal reports a non-empty run of digits without a leading zero (or "0").
func decimal(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
