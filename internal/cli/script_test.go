package cli_test

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
)

// -update rewrites the cmp goldens inside the scripts; review the diff before committing.
var update = flag.Bool("update", false, "rewrite testscript goldens")

// TestMain lets the scripts run both binaries in-process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"butlerctl": func() { os.Exit(butlerctl.Main()) },
		"butleradm": func() { os.Exit(butleradm.Main()) },
	})
}

// TestScripts runs testdata/script/*.txtar: one behaviour each, readable as documentation.
// Every script starts with a copy of examples/payments in $WORK/payments, so scripts that
// edit manifests in place never touch the checked-in example.
func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"code": cmdCode},
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("NO_COLOR", "")
			return copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(env.WorkDir, "payments"))
		},
	})
}

// cmdCode runs a command and asserts its exact exit status, for the documented exit codes:
//
//	code 4 butlerctl cluster create ...
//
// Its stdout and stderr are kept for the stdout, stderr and cmp commands that follow.
func cmdCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: code N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("code: %q is not an exit status", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("code: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
