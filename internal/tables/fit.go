package tables

import (
	"github.com/charmbracelet/x/ansi"
)

// columnGap is the space between columns, as kubectl leaves it.
const columnGap = 3

// minShrink is the narrowest a truncated column gets (its header stays whole).
const minShrink = 8

// fit returns the header and rows narrowed to t.Width, the way gh and kubectl narrow tables
// on a terminal: first the Drop columns go, in order; then the widest column other than the
// first (which names the row) is cut, its cells ending in "…", until the table fits or no
// column can give more (none is cut below its header or 8 columns). Width 0 means no limit: pipes and files get every column in full.
func (t *Table) fit() ([]string, [][]string) {
	header, rows := t.header, t.rows
	if t.Width <= 0 || len(header) == 0 {
		return header, rows
	}
	for _, name := range t.Drop {
		if tableWidth(widths(header, rows)) <= t.Width {
			break
		}
		if i := indexOf(header, name); i >= 0 {
			header, rows = without(header, rows, i)
		}
	}
	// One column at a time by one, the widest first, so wide columns end up alike
	// rather than one cut to its header.
	w := widths(header, rows)
	for tableWidth(w) > t.Width {
		col := -1
		for i := 1; i < len(w); i++ {
			floor := max(minShrink, ansi.StringWidth(header[i]))
			if w[i] > floor && (col < 0 || w[i] > w[col]) {
				col = i
			}
		}
		if col < 0 {
			break // nothing more to give: the terminal wraps the rest
		}
		w[col]--
	}
	out := make([][]string, len(rows))
	for r, row := range rows {
		out[r] = make([]string, len(row))
		for i, cell := range row {
			if i < len(w) && ansi.StringWidth(cell) > w[i] {
				cell = ansi.Truncate(cell, w[i], "…")
			}
			out[r][i] = cell
		}
	}
	return header, out
}

func widths(header []string, rows [][]string) []int {
	w := make([]int, len(header))
	for i, h := range header {
		w[i] = ansi.StringWidth(h)
	}
	for _, row := range rows {
		for i, cell := range row {
			if i < len(w) {
				w[i] = max(w[i], ansi.StringWidth(cell))
			}
		}
	}
	return w
}

func tableWidth(w []int) int {
	n := 0
	for _, x := range w {
		n += x
	}
	if len(w) > 1 {
		n += columnGap * (len(w) - 1)
	}
	return n
}

func indexOf(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}

func without(header []string, rows [][]string, i int) ([]string, [][]string) {
	h := append(append([]string{}, header[:i]...), header[i+1:]...)
	out := make([][]string, len(rows))
	for r, row := range rows {
		if i < len(row) {
			row = append(append([]string{}, row[:i]...), row[i+1:]...)
		}
		out[r] = row
	}
	return h, out
}
