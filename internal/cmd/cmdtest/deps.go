package cmdtest

import (
	"bytes"
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Now is the clock of Run and Deps: 2025-01-01, so ages and expiries are fixed.
func Now() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }

// Deps are a command's dependencies built by hand around s, for a unit test that calls
// run with a narrow fake of the command's own Store: streams over buffers (stdout and
// stderr returned), the fixed clock, and the printer of format ("" for the table) under
// the command's spec.
func Deps[S any](s S, spec output.Spec, format string) (factory.Deps[S], *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	d := factory.Deps[S]{IO: ios, Store: fixed(s), Now: Now}
	d.Print = output.Register(&cobra.Command{}, &format, spec)
	d.Printer = d.Print.Printer(ios)
	return d, out, errOut
}

// fixed is a store opener that returns s.
func fixed[S any](s S) func(context.Context) (S, error) {
	return func(context.Context) (S, error) { return s, nil }
}
