package fastyaml

import "go.yaml.in/yaml/v3"

// doubleQuoted parses a double-quoted scalar at column c, alone on the current line (but
// for a comment). Escapes are left to yaml.v3.
func (p *parser) doubleQuoted(c int) (*yaml.Node, bool) {
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
	if end < 0 || !p.lineEnd(end+1-p.pos) {
		return nil, false
	}
	return p.node(yaml.ScalarNode, "!!str", clone(p.text[p.pos+c+1:end]), yaml.DoubleQuotedStyle, p.line, p.col(c)), true
}

// singleQuoted parses a single-quoted scalar at column c, alone on the current line (but
// for a comment).
func (p *parser) singleQuoted(c int) (*yaml.Node, bool) {
	var b []byte // the value, once a quote was escaped ('')
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
	if end < 0 || !p.lineEnd(end+1-p.pos) {
		return nil, false
	}
	v := string(b)
	if b == nil {
		v = clone(p.text[p.pos+c+1 : end])
	}
	return p.node(yaml.ScalarNode, "!!str", v, yaml.SingleQuotedStyle, p.line, p.col(c)), true
}

// emptyFlow parses "[]" or "{}" at column c; flow collections with content are left to
// yaml.v3.
func (p *parser) emptyFlow(c int) (*yaml.Node, bool) {
	ch := p.at(c)
	if p.at(c+1) != ch+2 || !p.lineEnd(c+2) { // ']' and '}' follow '[' and '{' by two
		return nil, false
	}
	kind, tag := yaml.SequenceNode, "!!seq"
	if ch == '{' {
		kind, tag = yaml.MappingNode, "!!map"
	}
	return p.node(kind, tag, "", yaml.FlowStyle, p.line, p.col(c)), true
}

// plain parses a plain scalar at column c that ends on the current line.
func (p *parser) plain(c int) (*yaml.Node, bool) {
	if !plainStart(p.at(c), p.at(c+1)) {
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
	return p.node(yaml.ScalarNode, tag, clone(v), 0, p.line, p.col(c)), true
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

// clone copies s: the tree shares no memory with the text, which callers may read into a
// buffer they reuse (the loader does), and a value kept does not keep the whole text alive.
func clone(s string) string {
	if s == "" {
		return ""
	}
	return string([]byte(s))
}
