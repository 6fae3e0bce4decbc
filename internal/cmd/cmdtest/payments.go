package cmdtest

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// Payments runs the command whole, as Run does, over the worked example
// (storetest.Payments) acting as as, and returns the store, which holds what was written,
// with the result. live makes the store a live cluster's, where the server's RBAC (not the
// documents) decides who may write at all.
func Payments[O any](t testing.TB, as string, live bool, newCmd func(*factory.Factory, func(*O) error) *cobra.Command, args ...string) (*storetest.Store, Result) {
	t.Helper()
	s := storetest.Payments(t, as)
	if live {
		s.Live = &storetest.Server{}
	}
	return s, Run(t, s, Cmd(newCmd), factory.GlobalOptions{}, "", false, args...)
}
