package root

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
)

// tree is a root with one group holding a command that panics and one that works.
func tree(t *testing.T) (*factory.Factory, *cobra.Command, func() (string, string)) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &factory.Factory{IOStreams: ios, Options: &factory.GlobalOptions{}, Now: time.Now}
	cmd := New(f, "tool", "a tool", "a tool")
	group := &cobra.Command{Use: "thing", Short: "things"}
	group.AddCommand(&cobra.Command{Use: "crash", RunE: func(*cobra.Command, []string) error {
		var m map[string]int
		m["x"]++ //lint:ignore SA5000 a nil-map write is the point: a real runtime panic
		return nil
	}})
	group.AddCommand(&cobra.Command{Use: "list", RunE: func(*cobra.Command, []string) error { return nil }})
	cmd.AddCommand(group)
	return f, cmd, func() (string, string) { return out.String(), errOut.String() }
}

func TestRunRecoversPanicAsInternalError(t *testing.T) {
	t.Setenv("BUTLER_DEBUG", "")
	f, cmd, outputs := tree(t)
	if code := Run(f, cmd, []string{"thing", "crash"}); code != 70 {
		t.Fatalf("exit %d, want 70", code)
	}
	_, stderr := outputs()
	if !strings.HasPrefix(stderr, "Error: internal error: assignment to entry in nil map; please report it at "+IssuesURL+"\n") {
		t.Errorf("stderr = %q", stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, ".go:") {
		t.Errorf("stack trace without BUTLER_DEBUG: %q", stderr)
	}
}

func TestRunPrintsStackWithButlerDebug(t *testing.T) {
	t.Setenv("BUTLER_DEBUG", "1")
	f, cmd, outputs := tree(t)
	if code := Run(f, cmd, []string{"thing", "crash"}); code != 70 {
		t.Fatalf("exit %d, want 70", code)
	}
	if _, stderr := outputs(); !strings.Contains(stderr, "goroutine") {
		t.Errorf("no stack trace with BUTLER_DEBUG: %q", stderr)
	}
}

func TestRunUnknownSubcommandUnderGroup(t *testing.T) {
	f, cmd, outputs := tree(t)
	if code := Run(f, cmd, []string{"thing", "lsit"}); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	stdout, stderr := outputs()
	if stdout != "" {
		t.Errorf("help printed for an unknown command: %q", stdout)
	}
	for _, want := range []string{`unknown command "lsit" for "tool thing"`, "Did you mean this?\n\tlist\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	f, cmd, outputs = tree(t)
	if code := Run(f, cmd, []string{"thing"}); code != 0 {
		t.Fatalf("group alone: exit %d, want 0", code)
	}
	if stdout, _ := outputs(); !strings.Contains(stdout, "Available Commands") {
		t.Errorf("group alone prints no help: %q", stdout)
	}
}
