package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileScreens show text a manifest supplied with escape sequences in it (clear the
// screen, hide the rest of the line, a carriage return over the line, a bell): the
// terminal shows them inert ("^[[2J"), with and without colour, and nothing is hidden.
var hostileScreens = []screen{
	{"inert-team-get", "butlerctl team get payments"},
	{"inert-env-get", "butlerctl env get prod --team payments"},
	{"inert-cluster-list-wide", "butlerctl cluster list --team payments -o wide"},
	{"inert-describe", "butlerctl cluster describe bob-checkout --team payments"},
}

// hostile rewrites the example tree: escape sequences in the Team's description, an
// environment's description and a cluster's owner annotation.
func hostile(t *testing.T, dir string) {
	t.Helper()
	edit := func(file, old, new string) {
		p := filepath.Join(dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s has no %q", p, old)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("team.yaml", "description: Card and ledger services", `description: "Card\e[2J\e[H services\e[8m (hidden)"`)
	edit("team.yaml", "description: Customer-facing payments processing", `description: "Customer\rFAKE LINE\a"`)
	edit("clusters/bob-checkout.yaml", "butler.butlerlabs.dev/owner: bob@example.com", `butler.butlerlabs.dev/owner: "bob\e]0;owned\a@example.com"`)
}

// TestInertScreens runs each hostile screen in tmux at 80 columns, with and without
// colour, and compares the terminal with testdata/screens/inert-*.txt.
func TestInertScreens(t *testing.T) {
	bindir, root := screenSetup(t)
	for _, sc := range hostileScreens {
		for _, color := range []bool{false, true} {
			name := sc.name + "-80"
			if color {
				name += "-color"
			}
			t.Run(name, func(t *testing.T) {
				work := t.TempDir()
				if err := copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(work, "payments")); err != nil {
					t.Fatal(err)
				}
				hostile(t, filepath.Join(work, "payments"))
				got := capture(t, bindir, work, sc.cmd, 80, color)
				if strings.Contains(got, "FAKE LINE\n") || !strings.Contains(got, "(hidden)") && sc.name == "inert-team-get" {
					t.Errorf("the manifest's escapes acted on the terminal:\n%s", got)
				}
				golden := filepath.Join(root, "testdata", "screens", name+".txt")
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("the screen differs from %s (run with -update and review the diff)\n--- got\n%s\n--- want\n%s", golden, got, want)
				}
			})
		}
	}
}
