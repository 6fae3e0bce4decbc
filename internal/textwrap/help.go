package textwrap

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// flagLine is a line of cobra's flag list: the flag and its type, then the description
// in a column of its own.
var flagLine = regexp.MustCompile(`^(\s+(?:-\S, )?--\S+(?: \S+)?\s{2,})(\S.*)$`)

// commandLine is a line of cobra's command list: the name padded to a column, then the
// short description; topicLine one of its help topics, whose command path holds spaces,
// so that only a gap of two spaces or more ends it (else the line is kept whole).
var (
	commandLine = regexp.MustCompile(`^(\s+\S+\s+)(\S.*)$`)
	topicLine   = regexp.MustCompile(`^(\s+\S.*?\s{2,})(\S.*)$`)
)

// listLine is the pattern of a line in a section of commands (cobra's "Available
// Commands:", a group's title such as "Cluster Commands:", "Additional help topics:"), or
// nil for another section.
func listLine(section string) *regexp.Regexp {
	switch {
	case strings.HasSuffix(section, "Commands:"):
		return commandLine
	case strings.HasSuffix(section, "help topics:"):
		return topicLine
	}
	return nil
}

// Help fits a command's help text to width, as gh does on a terminal: a flag's
// description wraps under its column; a paragraph with a line wider than the terminal is
// joined and wrapped again under its own indentation (a list item under its text); the
// examples, which are commands to copy, stay whole, as does every paragraph that already
// fits; each command of a list stays on a line of its own, its description wrapping under
// its column. A width of 0 or less leaves the text as it is.
func Help(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	var out []string
	section := ""
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "":
			section = ""
			out = append(out, l)
			i++
		case !strings.HasPrefix(l, " ") && strings.HasSuffix(l, ":"):
			section = l // Usage:, Aliases:, Examples:, Flags:, Global Flags:
			out = append(out, l)
			i++
		case strings.HasSuffix(section, "Flags:") || listLine(section) != nil:
			re := flagLine
			if list := listLine(section); list != nil {
				re = list
			}
			if m := re.FindStringSubmatch(l); m != nil && ansi.StringWidth(l) > width {
				l = Indent(m[2], m[1], strings.Repeat(" ", len(m[1])), width)
			}
			out = append(out, l)
			i++
		case section == "Examples:" || section == "Usage:" || section == "Aliases:":
			out = append(out, l)
			i++
		case strings.HasPrefix(l, " ") && topicLine.MatchString(l):
			// A term and its description in a column ("  NO_COLOR   no colour"), with
			// the lines that continue it at the column: kept apart from the terms around
			// it, and wrapped under the column when a line is too wide.
			m := topicLine.FindStringSubmatch(l)
			col := strings.Repeat(" ", len(m[1]))
			j, fits, desc := i+1, ansi.StringWidth(l) <= width, m[2]
			for ; j < len(lines) && strings.TrimSpace(lines[j]) != "" && leading(lines[j]) == col; j++ {
				fits = fits && ansi.StringWidth(lines[j]) <= width
				desc += " " + strings.TrimSpace(lines[j])
			}
			if fits {
				out = append(out, lines[i:j]...)
			} else {
				out = append(out, Indent(desc, m[1], col, width))
			}
			i = j
		default:
			p := paragraph(lines, i)
			out = append(out, wrapParagraph(lines[i:p], width)...)
			i = p
		}
	}
	return strings.Join(out, "\n")
}

// paragraph is the end of the paragraph starting at line i: the next blank line, a line
// of another indentation, or a list item.
func paragraph(lines []string, i int) int {
	indent := leading(lines[i])
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		if strings.TrimSpace(l) == "" || leading(l) != indent || isItem(l) {
			break
		}
	}
	return j
}

// wrapParagraph joins the lines and wraps them, under the first line's indentation (a
// list item's continuation under its text); a paragraph that fits is left as written.
func wrapParagraph(lines []string, width int) []string {
	fits := true
	for _, l := range lines {
		fits = fits && ansi.StringWidth(l) <= width
	}
	if fits {
		return lines
	}
	first := lines[0]
	indent := leading(first)
	rest := indent
	if isItem(first) {
		rest = indent + "  "
	}
	text := strings.Join(lines, " ")
	return strings.Split(Indent(strings.TrimSpace(text), indent, rest, width), "\n")
}

func leading(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " "))] }

func isItem(l string) bool { return strings.HasPrefix(strings.TrimLeft(l, " "), "- ") }
