package cli_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/kubectlbutler"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// -update rewrites the cmp goldens inside the scripts; review the diff before committing.
var update = flag.Bool("update", false, "rewrite testscript goldens")

// TestMain lets the scripts run both binaries in-process, stops the test control plane
// after the tests if TestLiveScripts started it, and removes the binaries builtBinaries
// built.
func TestMain(m *testing.M) {
	testscript.Main(withBuiltBinaries{testenv.Main(m)}, map[string]func(){
		"butlerctl":          func() { os.Exit(butlerctl.Main()) },
		"butleradm":          func() { os.Exit(butleradm.Main()) },
		kubectlbutler.Binary: func() { os.Exit(kubectlbutler.Main(os.Args[1:])) },
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
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"code": cmdCode, "cmpdiff": cmdCmpDiff},
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("NO_COLOR", "")
			// Public repositories as published (testdata/public), to read only: a script
			// that changes one copies it first.
			env.Setenv("PUBLIC", filepath.Join(root, "testdata", "public"))
			if err := copyDir(filepath.Join(root, "examples", "flux"), filepath.Join(env.WorkDir, "flux")); err != nil {
				return err
			}
			return copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(env.WorkDir, "payments"))
		},
	})
}

// liveMu serialises the live scripts: they share one control plane and the payments
// objects on it.
var liveMu sync.Mutex

// TestLiveScripts runs testdata/script/live/*.txtar against a real kube-apiserver and etcd
// (internal/testenv), skipped when `make testbin` has not built them.
//
// Every script starts from the same state: before it runs, every Butler object on the
// control plane is deleted and examples/payments is loaded again (the Team, its Users, the
// platform ProviderConfig in butler-system, the clusters in payments). The scripts share
// the payments namespace, so they run one at a time; each is a few requests, and they
// read exactly like the offline scripts (`--team payments`).
//
// A script picks its identity with --kubeconfig $KUBECONFIG_<NAME> (or by setting
// KUBECONFIG): OLIVIA is a platform admin, ALICE the team admin, BOB and CAROL operators,
// DAVE a viewer; $KUBECONFIG_ADMIN is the envtest admin. Every identity has a client
// certificate of its own; the e-mail is what the API server sees.
func TestLiveScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.Start(t, testenv.WithWebhook())
	payments := filepath.Join(root, "examples", "payments")
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "testdata", "script", "live"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"code": cmdCode, "cmpdiff": cmdCmpDiff, "webhook": cmdWebhook(env), "bulkclusters": cmdBulkClusters(env), "butlerlogin": cmdButlerLogin, "reaper": cmdReaper(env)},
		Setup: func(e *testscript.Env) error {
			liveMu.Lock()
			e.Defer(liveMu.Unlock)
			ctx := context.Background()
			env.EnforceWebhook(false)                            // dormant while the fixtures load; `webhook on` enforces
			if err := env.RestoreInstallation(ctx); err != nil { // doctor's scripts break it on purpose
				return err
			}
			if err := env.Reset(ctx); err != nil {
				return err
			}
			if err := env.LoadManifests(ctx, payments); err != nil {
				return err
			}
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".config"))
			e.Setenv("NO_COLOR", "")
			// The example as manifests, to read only: offline runs to compare with live ones.
			e.Setenv("PAYMENTS", payments)
			// The repository, read only: the files docs/live-quickstart.md applies.
			e.Setenv("REPO", root)
			// kubectl from the same build, to look at the server independently of the tools.
			e.Setenv("PATH", testenv.AssetsDir()+string(os.PathListSeparator)+e.Getenv("PATH"))
			for _, u := range append([]string{"admin"}, testenv.Users...) {
				name, _, _ := strings.Cut(u, "@")
				e.Setenv("KUBECONFIG_"+strings.ToUpper(name), env.Kubeconfig(u))
			}
			return nil
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
