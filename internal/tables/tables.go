// Package tables renders kubectl-style tables for people: columns three spaces apart,
// narrowed to the terminal, colour only on a terminal; and the cells they share.
package tables

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Table collects rows and renders them without borders, columns three spaces apart, like
// kubectl. Trailing spaces are trimmed so piped output is stable.
type Table struct {
	header []string
	rows   [][]string
	color  bool
	// NoHeaders leaves the header line out (--no-headers).
	NoHeaders bool
	// Width, when positive, is the width the table is narrowed to (fit.go); Drop names
	// the columns, by header, to leave out first when it is too wide; Last those to leave
	// out only when, every column cut as far as it goes, it still is.
	Width int
	Drop  []string
	Last  []string
}

// NewTable starts a table; color adds bold headers.
func NewTable(color bool, header ...string) *Table {
	return &Table{header: header, color: color}
}

// Row adds a row. Cells are made inert (inert.Cell): text from a manifest cannot act on
// the terminal, nor begin a CI workflow command in the first column; cells coloured by
// Styles are kept.
func (t *Table) Row(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = inert.Cell(c, i == 0)
	}
	t.rows = append(t.rows, row)
}

// Render writes the table.
func (t *Table) Render(w io.Writer) error {
	header, rows, gap := t.fit()
	pad := strings.Repeat(" ", gap)
	var sb strings.Builder
	table := tablewriter.NewTable(&sb,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off, ShowTop: tw.Off, ShowBottom: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{
				Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
				Alignment:  tw.CellAlignment{Global: tw.AlignLeft},
				Padding:    tw.CellPadding{Global: tw.Padding{Left: "", Right: pad}},
			},
			Row: tw.CellConfig{
				Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone},
				Alignment:  tw.CellAlignment{Global: tw.AlignLeft},
				Padding:    tw.CellPadding{Global: tw.Padding{Left: "", Right: pad}},
			},
		}),
	)
	table.Header(header)
	for _, r := range rows {
		if err := table.Append(r); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(sb.String(), "\n"), "\n")
	bold := lipgloss.NewStyle().Bold(true)
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if i == 0 && t.NoHeaders {
			continue
		}
		if i == 0 && t.color {
			l = bold.Render(l)
		}
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// Styles colour words on a terminal; without colour they return the text unchanged.
type Styles struct{ on bool }

// NewStyles returns styles that colour only when on.
func NewStyles(on bool) Styles { return Styles{on: on} }

func (s Styles) paint(color, text string) string {
	text = inert.Text(text)
	if !s.on {
		return text
	}
	return inert.Painted(lipgloss.NewStyle().Foreground(lipgloss.Color(color)).Render(text))
}

// Good paints text green.
func (s Styles) Good(text string) string { return s.paint("2", text) }

// Warn paints text yellow.
func (s Styles) Warn(text string) string { return s.paint("3", text) }

// Bad paints text red.
func (s Styles) Bad(text string) string { return s.paint("1", text) }

// Status paints a quota status by its meaning.
func (s Styles) Status(status string) string {
	switch status {
	case "OK":
		return s.Good(status)
	case "Warning":
		return s.Warn(status)
	case "Exceeded":
		return s.Bad(status)
	}
	return status
}

// Dash prints an empty cell as "-".
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Cap prints a cap where 0 or less means none, as "-".
func Cap(n int32) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(int(n))
}
