package factory

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Deps are what most commands' Options carry, embedded as kubectl's Options embed their
// IOStreams: the streams, the store as S, the clock, the -o flags NewCmd registers and the
// printer they choose. factory.Run checks -o and completes them before the command's own
// Complete; a command that needs nothing more has no Complete or Validate.
//
// S is the command's own store interface, declared in its package with the role
// interfaces of internal/store it uses (and a compile-time proof that store.Store
// implements it: var _ Store = store.Store(nil)), so run depends on what it uses and a
// unit test's fake need implement no more.
type Deps[S any] struct {
	IO    *iostreams.IOStreams
	Store func(context.Context) (S, error)
	// Now is the clock (the Factory's, so ages and expiries in golden output are fixed).
	Now   func() time.Time
	Print *output.Flags
	// Printer prints by -o; Complete resolves it.
	Printer *output.Printer
	// DryRun is --dry-run, for a command that registered it (AddDryRun).
	DryRun cmdutil.DryRun
}

// completeDeps takes from the Factory what run needs; it reads nothing yet: the store
// opens on first use.
func (d *Deps[S]) completeDeps(f *Factory) {
	d.IO, d.Now = f.IOStreams, f.Now
	d.Store = StoreAs[S](f)
	if d.Now == nil {
		d.Now = time.Now
	}
	d.DryRun = f.Options.DryRun
	d.Printer = d.Print.Printer(f.IOStreams)
	d.Printer.Suffix = d.DryRun.Suffix()
}

// validatePrint checks -o before anything else.
func (d *Deps[S]) validatePrint(cmd *cobra.Command) error {
	if d.Print == nil {
		return nil // a command without -o
	}
	return d.Print.Validate(cmd)
}

// StoreAs opens f's store (once, on first use) as S, an interface store.Store implements.
// The conversion cannot fail for such an S; the package's compile-time proof holds it.
func StoreAs[S any](f *Factory) func(context.Context) (S, error) {
	return func(ctx context.Context) (S, error) {
		var none S
		s, err := f.Store(ctx)
		if err != nil {
			return none, err
		}
		narrow, ok := any(s).(S)
		if !ok {
			return none, fmt.Errorf("internal error: the store does not implement %T", &none)
		}
		return narrow, nil
	}
}
