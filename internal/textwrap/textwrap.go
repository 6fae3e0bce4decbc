// Package textwrap wraps prose to the terminal: between words, the first line after a
// prefix and the rest indented under it, so findings and checks read as blocks under their
// heading. Words longer than a line (a path, a URL, a command) stay whole: a name is never
// cut. Widths are display widths, so escape sequences and wide characters count right.
package textwrap

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Indent is text after first, wrapped at width, each further line starting with rest; a
// width of 0 or less (a pipe, a file) leaves it on one line. The result has no trailing
// newline.
func Indent(text, first, rest string, width int) string {
	var b strings.Builder
	b.WriteString(first)
	col := ansi.StringWidth(first)
	start := col
	for _, word := range strings.Fields(text) {
		w := ansi.StringWidth(word)
		switch {
		case col == start:
		case width > 0 && col+1+w > width:
			b.WriteString("\n")
			b.WriteString(rest)
			col = ansi.StringWidth(rest)
			start = col
		default:
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += w
	}
	return b.String()
}
