package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A screen is one command run in a real terminal (tmux), captured as the terminal shows it.
type screen struct {
	name string
	cmd  string // a shell line, run in a copy of examples/payments as carol
}

var screens = []screen{
	{"create-explain", "butlerctl cluster create web --team payments --environment prod --explain"},
	{"create-refusal", "butlerctl cluster create sandbox-3 --team payments --environment dev"},
	{"team-get", "butlerctl team get payments"},
	{"env-list", "butlerctl env list --team payments"},
	{"cluster-list", "butlerctl cluster list --team payments"},
	{"cluster-list-wide", "butlerctl cluster list --team payments -o wide"},
	{"provider-list", "butleradm provider list --as olivia@example.com"},
	{"provider-get", "butleradm provider get harvester-prod -n butler-system --as olivia@example.com"},
	{"check-findings", "butlerctl check"},
	{"help-whoami", "butlerctl auth whoami --help"},
	{"migrate-progress", "butleradm env migrate --team payments --environment dev --all --yes --allow-over-quota --as olivia@example.com --concurrency 2"},
}

// TestScreens runs each screen in tmux at 80 and 160 columns, with and without colour, and
// compares what the terminal shows with testdata/screens (-update rewrites them; review the
// diff). Layout regressions (a table wider than the terminal, a wrapped column, a lost
// hint) fail here. It needs tmux: `apt-get install -y tmux` (make test-deps).
func TestScreens(t *testing.T) {
	bindir, root := screenSetup(t)
	for _, sc := range screens {
		for _, width := range []int{80, 160} {
			for _, color := range []bool{false, true} {
				name := fmt.Sprintf("%s-%d", sc.name, width)
				if color {
					name += "-color"
				}
				t.Run(name, func(t *testing.T) {
					work := t.TempDir()
					if err := copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(work, "payments")); err != nil {
						t.Fatal(err)
					}
					if sc.name == "migrate-progress" {
						legacyClusters(t, root, work, 40)
					}
					got := capture(t, bindir, work, sc.cmd, width, color)
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
}

// screenSetup skips a test of screens without tmux, and gives the folder of the binaries
// the screens run (built once, without the race detector: builtBinaries) and the
// repository's root.
func screenSetup(t *testing.T) (bindir, root string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed, so the terminal screens are not checked: apt-get install -y tmux (or make test-deps)")
	}
	bindir = builtBinaries(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return bindir, root
}

// firstScreens are the help of both binaries and of every group of commands: what a
// newcomer reads first, on terminals narrow and wide.
var firstScreens = []string{
	"butlerctl", "butlerctl addon", "butlerctl auth", "butlerctl cluster", "butlerctl completion",
	"butlerctl context", "butlerctl env", "butlerctl policy", "butlerctl team", "butlerctl upgrade",
	"butleradm", "butleradm auth", "butleradm cluster", "butleradm completion", "butleradm env",
	"butleradm network", "butleradm policy", "butleradm provider", "butleradm team", "butleradm user",
	"butleradm webhook",
}

// TestFirstScreens runs `--help` of each of firstScreens in tmux at 60, 80 and 120
// columns, on a terminal tall enough to hold it all, and compares the screen with
// testdata/screens/first (-update rewrites them; review the diff): each command of a list
// on a line of its own, its description wrapped under its column, at any width.
func TestFirstScreens(t *testing.T) {
	bindir, root := screenSetup(t)
	work := t.TempDir()
	for _, cmd := range firstScreens {
		for _, width := range []int{60, 80, 120} {
			name := fmt.Sprintf("%s-%d", strings.ReplaceAll(cmd, " ", "-"), width)
			t.Run(name, func(t *testing.T) {
				got := captureRows(t, bindir, work, cmd+" --help", width, 250, false)
				golden := filepath.Join(root, "testdata", "screens", "first", name+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
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
}

// capture runs line in a fresh tmux server of the given width, 50 rows high, and returns
// the screen once the command has ended: trailing blank lines dropped, escapes kept when
// color.
func capture(t *testing.T, bindir, work, line string, width int, color bool) string {
	t.Helper()
	return captureRows(t, bindir, work, line, width, 50, color)
}

// captureRows is capture on a terminal of the given rows.
func captureRows(t *testing.T, bindir, work, line string, width, rows int, color bool) string {
	t.Helper()
	sock := fmt.Sprintf("butler-screens-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	}
	t.Cleanup(func() { _, _ = tmux("kill-server") })
	env := []string{"HOME=" + work, "TERM=xterm-256color", "LANG=C.UTF-8", "PATH=" + bindir + ":/usr/local/bin:/usr/bin:/bin",
		"BUTLER_MANIFESTS=payments", "BUTLER_AS=carol@example.com", "XDG_CONFIG_HOME=" + filepath.Join(work, ".config")}
	if !color {
		env = append(env, "NO_COLOR=1")
	}
	const done = "[screen done]"
	shell := fmt.Sprintf("cd %s && %s; echo '%s'; exec sleep 60", work, line, done)
	args := append([]string{"new-session", "-d", "-s", "s", "-x", fmt.Sprint(width), "-y", fmt.Sprint(rows), "env", "-i"}, env...)
	if out, err := tmux(append(args, "sh", "-c", shell)...); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := tmux("capture-pane", "-p", "-J", "-t", "s")
		if err == nil && bytes.Contains(out, []byte(done)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q did not end within 60s; the screen:\n%s", line, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	capArgs := []string{"capture-pane", "-p", "-t", "s"}
	if color {
		capArgs = append(capArgs, "-e")
	}
	out, err := tmux(capArgs...)
	if err != nil {
		t.Fatalf("tmux capture-pane: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n "), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	text := strings.Join(lines, "\n")
	text = strings.TrimSuffix(text, done)
	return "$ " + line + "\n" + strings.TrimRight(text, "\n") + "\n"
}

// legacyClusters adds n clusters from before environments existed, so a migration has a
// progress to show.
func legacyClusters(t *testing.T, root, work string, n int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "examples", "payments", "clusters", "ledger-legacy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		doc := strings.Replace(string(b), "name: ledger-legacy", fmt.Sprintf("name: legacy-%02d", i), 1)
		if err := os.WriteFile(filepath.Join(work, "payments", "clusters", fmt.Sprintf("legacy-%02d.yaml", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
