package tables

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func render(t *testing.T, tb *Table) []string {
	t.Helper()
	var b bytes.Buffer
	if err := tb.Render(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

func wideTable(width int, drop ...string) *Table {
	tb := NewTable(false, "NAME", "PROVIDER", "OWNER", "AGE")
	tb.Row("carol-sandbox-1", "butler-system/harvester-prod", "carol@example.com", "3d")
	tb.Row("web", "butler-system/nutanix", "bob@example.com", "1h")
	tb.Width, tb.Drop = width, drop
	return tb
}

func TestFitNoLimit(t *testing.T) {
	lines := render(t, wideTable(0))
	if !strings.Contains(lines[1], "butler-system/harvester-prod") || !strings.Contains(lines[1], "carol@example.com") {
		t.Fatalf("without a width every cell is whole:\n%s", strings.Join(lines, "\n"))
	}
}

func TestFitDropsThenTruncates(t *testing.T) {
	for _, width := range []int{40, 50, 60} {
		lines := render(t, wideTable(width, "AGE"))
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: line is %d wide: %q", width, w, l)
			}
		}
		if strings.Contains(lines[0], "AGE") {
			t.Errorf("width %d: AGE is dropped first: %q", width, lines[0])
		}
		if !strings.HasPrefix(lines[1], "carol-sandbox-1 ") {
			t.Errorf("width %d: the first column is never cut: %q", width, lines[1])
		}
		if !strings.Contains(lines[1], "…") {
			t.Errorf("width %d: a cut cell ends in …: %q", width, lines[1])
		}
	}
}

func TestFitKeepsWhatFits(t *testing.T) {
	full := render(t, wideTable(0, "AGE"))
	fitted := render(t, wideTable(200, "AGE"))
	if strings.Join(full, "\n") != strings.Join(fitted, "\n") {
		t.Fatalf("a table that fits is unchanged:\n%s\n---\n%s", strings.Join(full, "\n"), strings.Join(fitted, "\n"))
	}
}

// Too wide with kubectl's three spaces, a table moves its columns to gh's two before it
// drops or cuts anything.
func TestFitNarrowsGapFirst(t *testing.T) {
	tb := NewTable(false, "NAME", "READY", "AGE")
	tb.Row("harvester-prod", "True", "3d")
	tb.Width, tb.Drop = 27, []string{"AGE"}
	lines := render(t, tb)
	if lines[0] != "NAME            READY  AGE" || lines[1] != "harvester-prod  True   3d" {
		t.Errorf("got:\n%s", strings.Join(lines, "\n"))
	}
}

// Columns that name things are cut last: a wider column of something else gives first.
func TestFitCutsNamesLast(t *testing.T) {
	tb := NewTable(false, "NAMESPACE", "NAME", "CREDENTIALS")
	tb.Row("butler-system", "harvester-prod", "butler-system/harvester-credentials")
	tb.Width = 50
	lines := render(t, tb)
	if !strings.Contains(lines[1], "harvester-prod ") || !strings.Contains(lines[1], "…") {
		t.Errorf("the name is whole, the credentials cut:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 50 {
			t.Errorf("over 50: %q", l)
		}
	}
}

// A Last column stays, cut, while cutting makes the table fit, and goes only when cutting
// cannot: at every width the table fits.
func TestFitLastOnlyWhenCuttingCannot(t *testing.T) {
	last := func(width int) *Table {
		tb := NewTable(false, "ENVIRONMENT", "CLUSTERS", "MAX CLUSTERS", "MAX PER MEMBER", "STATUS", "DESCRIPTION")
		tb.Row("dev", "2", "-", "2", "Warning", "Developer sandboxes for the payments engineers")
		tb.Width, tb.Last = width, []string{"DESCRIPTION"}
		return tb
	}
	for _, tc := range []struct {
		width int
		kept  bool
	}{{60, false}, {80, true}, {120, true}} {
		lines := render(t, last(tc.width))
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > tc.width {
				t.Errorf("width %d: line is %d wide: %q", tc.width, w, l)
			}
		}
		if got := strings.Contains(lines[0], "DESCRIPTION"); got != tc.kept {
			t.Errorf("width %d: DESCRIPTION kept %v, want %v:\n%s", tc.width, got, tc.kept, strings.Join(lines, "\n"))
		}
	}
}
