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
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds nesting; deeper documents are left to yaml.v3 (and the loader's own
// bound on depth).
const maxDepth = 48

// maxKeyLen: yaml.v3 refuses a simple key longer than 1024 bytes.
const maxKeyLen = 1000

// ErrDeclined: the text is outside the subset this package reads (including text that is
// not valid YAML, and text holding no document); parse it with yaml.v3 instead.
var ErrDeclined = errors.New("fastyaml: outside the subset")

// LimitError: the document holds more nodes than Parse's limit (the document node aside). Parse stops building nodes
// there, so that a document's memory is bounded by the limit, not by its bytes: three
// bytes ("- \n") make a node.
type LimitError struct {
	Line  int // where the node past the limit starts
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("more than %d nodes", e.Limit)
}

// Parse returns the document node of text, one YAML document, exactly as yaml.v3's
// Decoder gives it but without comments; ErrDeclined when text is outside the subset; a
// *LimitError as soon as it would make more than limit nodes under the document node,
// having read the document only so far.
//
// The nodes of what it read so far are nodes of yaml.v3's tree: the subset's lines mean
// what they mean to yaml.v3, whatever follows them.
func Parse(text string, limit int) (doc *yaml.Node, err error) {
	if !plainText(text) {
		return nil, ErrDeclined
	}
	p := &parser{text: text, limit: limit, slab: make([]yaml.Node, 0, min(estimateNodes(text), maxSlab, max(limit, 0))+1)}
	defer func() {
		if r := recover(); r != nil {
			over, ok := r.(limitReached)
			if !ok {
				panic(r)
			}
			doc, err = nil, &LimitError{Line: over.line, Limit: limit}
		}
	}()
	doc, ok := p.document()
	if !ok || p.refused {
		return nil, ErrDeclined
	}
	return doc, nil
}

// limitReached unwinds a parse from the node past its limit to Parse.
type limitReached struct{ line int }

// maxSlab bounds the nodes allocated at once: the estimate counts lines, and blank lines
// make no nodes.
const maxSlab = 4096

// estimateNodes guesses the nodes of a document from its lines (about two a line), so
// that one slab usually holds them all.
func estimateNodes(text string) int {
	return 2 + 2*strings.Count(text, "\n")
}

// plainText reports text free of what this package leaves to yaml.v3 wherever it occurs:
// tabs, carriage returns, control characters, a byte order mark, characters YAML takes as
// line breaks (NEL, U+2028, U+2029), characters outside the Basic Multilingual Plane and
// invalid UTF-8. (Directives and document end markers are found line by line: setLine.)
func plainText(text string) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if c >= 0x20 && c < 0x7f || c == '\n' {
			i++
			continue
		}
		if c < 0x80 {
			return false
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
	refused             bool // a line no document of the subset holds

	limit int // nodes it may make
	made  int // nodes made, past the limit too

	slab  []yaml.Node
	stack []*yaml.Node // children of the collections being built
	ptrs  []*yaml.Node // Content slices are cut from here
}

func (p *parser) node(kind yaml.Kind, tag, value string, style yaml.Style, line, col int) *yaml.Node {
	if kind != yaml.DocumentNode {
		if p.made++; p.made > p.limit {
			panic(limitReached{line})
		}
	}
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]yaml.Node, 0, min(maxSlab, p.limit-p.made)+1)
	}
	// Fields set one by one in the zeroed slab: appending a whole Node costs a copy with
	// write barriers.
	p.slab = p.slab[:len(p.slab)+1]
	n := &p.slab[len(p.slab)-1]
	n.Kind, n.Style, n.Line, n.Column = kind, style, line, col
	if tag != "" {
		n.Tag = tag
	}
	if value != "" {
		n.Value = value
	}
	return n
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
	if c := p.text[pos]; c == '%' || (c == '.' && strings.HasPrefix(p.text[pos:], "...")) {
		p.refused = true // a directive or a document end marker
	} else if c == '-' && pos > 0 && marker(p.text[pos:]) {
		p.refused = true // a document start marker after the first line: a second document
	}
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

// marker reports a line (and what follows it) starting with a document start marker:
// "---" followed by a space, a line break or the end of the text.
func marker(s string) bool {
	return strings.HasPrefix(s, "---") && (len(s) == 3 || s[3] == ' ' || s[3] == '\n')
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

// document parses the whole text: an optional "---" line, then one block collection (a
// scalar document is left to yaml.v3).
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
	root, ok := p.block(p.ind, 0)
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
