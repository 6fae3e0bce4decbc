package checkreport

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// zwsp is a zero-width space, as a character reference: put where GitHub would make
// markup of plain text after rendering it (a mention, an emoji, a link), it breaks the
// pattern and shows nothing.
const zwsp = "&#8203;"

// md is text from a pull request (a file name, an object's name, a message quoting
// them) as GitHub's Markdown shows it literally, in a table cell or a list item: inert,
// with what would end a cell, start markup, raw HTML or a character reference escaped,
// and GitHub's extensions broken: @mentions (and e-mail autolinks), :emoji: shortcodes,
// ~strikethrough~, $math$, and autolinks of bare www. and scheme:// URLs. A list item's
// text cannot open a block (a heading, a quote, a list, code).
func md(s string) string {
	t := inert.Text(s)
	var b strings.Builder
	b.Grow(len(t) + len(t)/8)
	i := mdStart(&b, t)
	for ; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case strings.IndexByte("\\|`*_[]~$", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '@' && i+1 < len(t) && (isAlnum(t[i+1]) || t[i+1] == '_' || t[i+1] == '-'):
			b.WriteString("@" + zwsp) // @user, @org/team, user@example.com
		case c == ':' && (emojiAt(t, i) || strings.HasPrefix(t[i+1:], "//")):
			b.WriteString(":" + zwsp) // :emoji:, scheme://
		case (c == 'w' || c == 'W') && len(t) > i+3 && strings.EqualFold(t[i:i+4], "www."):
			b.WriteString(t[i:i+3] + zwsp + ".")
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mdStart writes what in t, at the start of a list item's text, would open a block, so
// that it does not: leading spaces (indented code) as character references, and the
// marker of a heading, quote, list or break escaped. It returns how much of t it wrote.
func mdStart(b *strings.Builder, t string) int {
	i := 0
	for i < len(t) && t[i] == ' ' {
		b.WriteString("&#32;")
		i++
	}
	if i == len(t) {
		return i
	}
	if strings.IndexByte("#>-+=", t[i]) >= 0 {
		b.WriteByte('\\')
		b.WriteByte(t[i])
		return i + 1
	}
	j := i
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j > i && j < len(t) && (t[j] == '.' || t[j] == ')') {
		b.WriteString(t[i:j] + "\\" + t[j:j+1]) // "1. " would start an ordered list
		return j + 1
	}
	return i
}

// emojiAt reports whether t[i], a colon, opens an emoji shortcode: a name of letters,
// digits, "_", "+" or "-", then a colon.
func emojiAt(t string, i int) bool {
	j := i + 1
	for j < len(t) && (isAlnum(t[j]) || t[j] == '_' || t[j] == '+' || t[j] == '-') {
		j++
	}
	return j > i+1 && j < len(t) && t[j] == ':'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
