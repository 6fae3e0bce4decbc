package delete_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

// payments is a copy of the worked example, for the writes.
var payments = cmdtest.PaymentsDir

// runDelete runs cluster delete as carol on a terminal (stdin and stderr), typing stdin.
func runDelete(t *testing.T, dir, stdin string, args ...string) (string, string, error) {
	return runDeleteAs(t, "carol@example.com", dir, stdin, args...)
}

func runDeleteAs(t *testing.T, as, dir, stdin string, args ...string) (string, string, error) {
	t.Helper()
	streams, in, out, errOut := iostreams.Test()
	streams.SetTTY(true, false, true)
	in.WriteString(stdin)
	f := &factory.Factory{
		IOStreams: streams,
		Options:   &factory.GlobalOptions{Manifests: []string{dir}, As: as, Output: "table"},
		NewStore: func(context.Context, *factory.Factory) (store.Store, error) {
			return offline.Load([]string{dir}, nil, as, nil)
		},
	}
	cmd := delete.NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestTerminalConfirmation(t *testing.T) {
	dir := payments(t)
	file := filepath.Join(dir, "clusters", "carol-sandbox-2.yaml")

	// The wrong name cancels; nothing is deleted.
	_, errOut, err := runDelete(t, dir, "carol-sandbox-1\n", "carol-sandbox-2", "--team", "payments")
	if err == nil || err.Error() != `deletion cancelled: you typed "carol-sandbox-1", expected "carol-sandbox-2"` {
		t.Fatalf("got %v", err)
	}
	if !strings.HasPrefix(errOut, "Delete TenantCluster payments/carol-sandbox-2 (environment dev, 2 worker(s))? Its control plane and workers go with it. Type its name to confirm: ") {
		t.Errorf("question: %q", errOut)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	// End of input without a name cancels too.
	if _, _, err := runDelete(t, dir, "", "carol-sandbox-2", "--team", "payments"); err == nil || !strings.HasPrefix(err.Error(), "deletion cancelled") {
		t.Fatalf("got %v", err)
	}

	// The name confirms.
	out, _, err := runDelete(t, dir, "carol-sandbox-2\n", "carol-sandbox-2", "--team", "payments")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "tenantcluster.butler.butlerlabs.dev/carol-sandbox-2 deleted (") {
		t.Errorf("output: %q", out)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("file still there: %v", err)
	}

	// --yes asks nothing.
	_, errOut, err = runDelete(t, dir, "", "carol-sandbox-1", "--team", "payments", "--yes")
	if err != nil || errOut != "" {
		t.Fatalf("--yes: %v, %q", err, errOut)
	}
}

// Refusals and missing objects come before the question: nobody is asked for nothing.
func TestRefusedBeforeTheQuestion(t *testing.T) {
	dir := payments(t)
	_, errOut, err := runDeleteAs(t, "dave@example.com", dir, "bob-checkout\n", "bob-checkout", "--team", "payments")
	if cmdutil.CodeOf(err) != cmdutil.ExitDenied || errOut != "" {
		t.Fatalf("dave: %v (exit %d), asked %q", err, cmdutil.CodeOf(err), errOut)
	}
	_, errOut, err = runDelete(t, dir, "nope\n", "nope", "--team", "payments")
	if cmdutil.CodeOf(err) != cmdutil.ExitNotFound || errOut != "" {
		t.Fatalf("nope: %v (exit %d), asked %q", err, cmdutil.CodeOf(err), errOut)
	}
}
