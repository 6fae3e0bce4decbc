package fastyaml

import "go.yaml.in/yaml/v3"

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
	if p.at(c) == 0 || p.at(c) == '#' {
		// Nothing on this line: the value is the collection on the next lines, or empty.
		line, nullCol := p.line, p.col(at)
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
	var ok bool
	switch p.at(c) {
	case '|', '>':
		return p.blockScalar(c, col)
	case '"':
		n, ok = p.doubleQuoted(c)
	case '\'':
		n, ok = p.singleQuoted(c)
	case '[', '{':
		n, ok = p.emptyFlow(c)
	default:
		n, ok = p.plain(c)
	}
	if !ok {
		return nil, false
	}
	p.next()
	p.skip()
	return n, true
}
