package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestTeamGetFits runs `team get` in tmux at 60, 80 and 120 columns, as TestFirstScreens
// runs help, and compares the screen with testdata/screens/team-get-fit-WIDTH.txt
// (-update rewrites them; review the diff). Every line the command printed, lines the
// terminal would wrap joined again, fits the terminal: a long "Set by" wraps under its
// column, and at 60 columns the environments' DESCRIPTION goes rather than the table
// running past the edge.
func TestTeamGetFits(t *testing.T) {
	bindir, root := screenSetup(t)
	work := t.TempDir()
	if err := copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(work, "payments")); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{60, 80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			printed := joined(t, bindir, work, width)
			if !strings.Contains(printed, "ENVIRONMENT") {
				t.Fatalf("no environments table:\n%s", printed)
			}
			for _, l := range strings.Split(printed, "\n") {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("a line %d columns wide on a terminal of %d: %q", w, width, l)
				}
			}
			got := captureRows(t, bindir, work, "butlerctl team get payments", width, 50, false)
			golden := filepath.Join(root, "testdata", "screens", fmt.Sprintf("team-get-fit-%d.txt", width))
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update and review the new screen)", err)
			}
			if got != string(want) {
				t.Errorf("the screen differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
		})
	}
}

// joined is what `team get` prints for a terminal of width columns (COLUMNS), line by
// line, before any terminal wraps it.
func joined(t *testing.T, bindir, work string, width int) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bindir, "butlerctl"), "team", "get", "payments")
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + work, "LANG=C.UTF-8", "NO_COLOR=1", "COLUMNS=" + fmt.Sprint(width),
		"BUTLER_MANIFESTS=payments", "BUTLER_AS=carol@example.com", "XDG_CONFIG_HOME=" + filepath.Join(work, ".config")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return string(out)
}
