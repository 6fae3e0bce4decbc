package factory

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Deps are what most commands' Options carry, embedded as kubectl's Options embed their
// IOStreams: the streams, the store, the -o flags NewCmd registers and the printer they
// choose. A command that needs nothing more uses Deps' Complete and Validate as its own.
type Deps struct {
	IO    *iostreams.IOStreams
	Store func(context.Context) (store.Store, error)
	Print *output.Flags
	// Printer prints by -o; Complete resolves it.
	Printer *output.Printer
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (d *Deps) Complete(f *Factory) {
	d.IO, d.Store = f.IOStreams, f.Store
	d.Printer = d.Print.Printer(f.IOStreams)
}

// Validate checks -o before anything is read.
func (d *Deps) Validate(cmd *cobra.Command) error { return d.Print.Validate(cmd) }
