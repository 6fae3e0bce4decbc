package inert

import "testing"

// A cell the tool painted is kept; the same escape sequences from anywhere else are not,
// nor a cell that would begin a workflow command.
func TestCell(t *testing.T) {
	own := Painted("\x1b[31mExceeded\x1b[0m")
	if got := Cell(own, false); got != own {
		t.Errorf("painted cell changed: %q", got)
	}
	if got := Cell("\x1b[8mhidden\x1b[0m", false); got != "^[[8mhidden^[[0m" {
		t.Errorf("forged colour: %q", got)
	}
	if got := Cell("::error::forged", true); got != `"::error::forged"` {
		t.Errorf("first cell: %q", got)
	}
	if got := Cell("::error::forged", false); got != "::error::forged" {
		t.Errorf("a later cell cannot begin a line: %q", got)
	}
}

// Each line of a message keeps its own line; a line that would begin a workflow command is
// quoted, control characters are shown.
func TestLines(t *testing.T) {
	got := Lines("team.yaml: bad key\n::error file=x::forged\n\x1b[2Jcleared")
	want := "team.yaml: bad key\n\"::error file=x::forged\"\n^[[2Jcleared"
	if got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	if s := "plain\ntext"; Lines(s) != s {
		t.Errorf("plain text changed")
	}
}

// Tabs indent a message's lines (cobra's "Did you mean this?") and stay.
func TestLinesKeepsTabs(t *testing.T) {
	if got := Lines("Did you mean this?\n\tlist"); got != "Did you mean this?\n\tlist" {
		t.Errorf("Lines = %q", got)
	}
}
