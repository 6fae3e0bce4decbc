package tables

import (
	"github.com/charmbracelet/x/ansi"
)

// columnGap is the space between columns, as kubectl leaves it; narrowGap is gh's, for a
// table that does not fit the terminal with kubectl's.
const (
	columnGap = 3
	narrowGap = 2
)

// names are the headers of columns that name things: cut last, after every other column
// has given what it can, so a name is never cut while another column has room to spare.
var names = map[string]bool{"NAME": true, "NAMESPACE": true, "TEAM": true, "CLUSTER": true, "ENVIRONMENT": true}

// minShrink is the narrowest a truncated column gets (its header stays whole).
const minShrink = 8

// fit returns the header and rows narrowed to t.Width and the space between columns, the
// way gh and kubectl narrow tables on a terminal: the columns move closer (gh's two spaces
// instead of kubectl's three), then the Drop columns go, in order; then the widest
// column other than the first (which names the row) is cut, its cells ending in "…",
// columns that name things (names) last, until the table fits or no column can give more
// (none is cut below its header or 8 columns). The Last columns go, in order, before the
// cutting only when the cutting alone cannot make the table fit. Width 0 means no limit: pipes and files get
// every column in full, kubectl's spacing.
func (t *Table) fit() ([]string, [][]string, int) {
	header, rows := t.header, t.rows
	if t.Width <= 0 || len(header) == 0 {
		return header, rows, columnGap
	}
	for _, name := range t.Drop {
		if tableWidth(widths(header, rows), narrowGap) <= t.Width {
			break // closer columns fit: a column is worth more than a space
		}
		if i := indexOf(header, name); i >= 0 {
			header, rows = without(header, rows, i)
		}
	}
	for _, name := range t.Last {
		if tableWidth(floors(header, rows), narrowGap) <= t.Width {
			break // cut cells say more than a column left out
		}
		if i := indexOf(header, name); i >= 0 {
			header, rows = without(header, rows, i)
		}
	}
	w := widths(header, rows)
	gap := columnGap
	if tableWidth(w, gap) > t.Width {
		gap = narrowGap
	}
	// One column at a time by one, the widest first, so wide columns end up alike
	// rather than one cut to its header.
	for tableWidth(w, gap) > t.Width {
		col := widestCuttable(header, w, false)
		if col < 0 {
			col = widestCuttable(header, w, true)
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
	return header, out, gap
}

// widestCuttable is the widest column but the first that can still be cut, among the
// columns that name things when names, else among the others; -1 when there is none.
func widestCuttable(header []string, w []int, nameCols bool) int {
	col := -1
	for i := 1; i < len(w); i++ {
		floor := max(minShrink, ansi.StringWidth(header[i]))
		if names[header[i]] == nameCols && w[i] > floor && (col < 0 || w[i] > w[col]) {
			col = i
		}
	}
	return col
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

// floors are the widths of the columns cut as far as fit cuts them: the first whole, the
// others to their header or minShrink, whichever is wider.
func floors(header []string, rows [][]string) []int {
	w := widths(header, rows)
	for i := 1; i < len(w); i++ {
		w[i] = min(w[i], max(minShrink, ansi.StringWidth(header[i])))
	}
	return w
}

func tableWidth(w []int, gap int) int {
	n := 0
	for _, x := range w {
		n += x
	}
	if len(w) > 1 {
		n += gap * (len(w) - 1)
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
