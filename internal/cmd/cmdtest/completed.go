package cmdtest

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Completed runs the command as RunF does and returns the Options runF was handed: what
// NewCmd parsed and Complete took, for the test to check. The test fails when the command
// did not reach runF or printed anything (run is not called, so nothing is read or said).
func Completed[O any](t testing.TB, s store.Store, newCmd func(*factory.Factory, func(*O) error) *cobra.Command, opts factory.GlobalOptions, args ...string) *O {
	t.Helper()
	o, r := RunF(t, s, newCmd, opts, args...)
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stdout != "" || r.Stderr != "" {
		t.Errorf("runF only, yet printed %q %q", r.Stdout, r.Stderr)
	}
	return o
}
