// Package inert makes text that a manifest, a file name or a server supplied safe to print:
// it cannot move the cursor, clear the screen, hide a line, reorder what a reader sees, or
// start a CI workflow command. Every renderer passes such text through Text (or Line, for
// text that may stand at the start of an output line) before printing it.
package inert

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every character that acts on a terminal or a log made visible:
// C0 and C1 control characters (escape, carriage return, newline, tab, backspace, bell),
// DEL, the Unicode line and paragraph separators, and the bidirectional controls that can
// make a line read differently from what it says. Escape shows as "^[" (as kubectl shows
// it); the others as Go escapes ("\r", "\n", "\x07", "\u202e"). Invalid UTF-8 shows as
// "\ufffd". Text that needs none of this is returned as it is, without allocating.
func Text(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\ufffd`)
		case r == 0x1b:
			b.WriteString("^[")
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line is Text for a value that may begin an output line (a file name heading a group, a
// name in the first column): a value that would read as a CI workflow command (GitHub's
// "::" and Azure Pipelines' "##") is quoted, so the line begins with a quote instead.
func Line(s string) string {
	return notCommand(Text(s))
}

// notCommand quotes inert text t if it would read as a workflow command at a line's start.
func notCommand(t string) string {
	trimmed := strings.TrimLeft(t, " \t")
	if strings.HasPrefix(trimmed, "::") || strings.HasPrefix(trimmed, "##") {
		return strconv.Quote(t)
	}
	return t
}

func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= utf8.RuneSelf {
			return safeSlow(s[i:])
		}
	}
	return true
}

func safeSlow(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || r == 0x1b || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == '\u2028', r == '\u2029': // line and paragraph separators
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f', r == '\u061c':
		return true // bidirectional embeddings, overrides, isolates and marks
	}
	return unicode.Is(unicode.Cc, r)
}
