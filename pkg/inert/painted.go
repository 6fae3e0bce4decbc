package inert

import (
	"strings"
	"sync"
)

// painted holds the strings the tool coloured itself: its own escape sequences around
// text already made inert. A renderer that receives cells from many places (a table)
// cannot tell those from escape sequences a manifest supplied; Cell asks here.
var painted sync.Map

// Painted records s as coloured by the tool (s must be the output of a styling call on
// text that went through Text) and returns it, so that Cell prints it as it is. A manifest
// cannot forge one: only the exact bytes recorded are kept, and they were made safe.
func Painted(s string) string {
	if !safe(s) {
		painted.Store(s, struct{}{})
	}
	return s
}

// Cell is Text for a table cell, or Line for the first cell of a row, except that a
// string recorded by Painted is kept as it is.
func Cell(s string, first bool) string {
	if _, ok := painted.Load(s); ok {
		return s
	}
	if first {
		return Line(s)
	}
	return Text(s)
}

// Lines is Line for each line of a message that may span lines (an error with a list of
// problems, cobra's suggestions): each stays a line of its own, tabs stay tabs (they only
// indent), and no line can begin a workflow command.
func Lines(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = Text(p)
		}
		ls[i] = notCommand(strings.Join(parts, "\t"))
	}
	return strings.Join(ls, "\n")
}
