package factory

import (
	"context"

	"github.com/spf13/cobra"
)

// Shaped are a command's Options in gh's shape: Complete takes from the Factory what run
// needs, Validate checks the flags before anything is read.
type Shaped interface {
	Complete(f *Factory)
	Validate(cmd *cobra.Command) error
}

// Run is the body of a command's RunE, the same for every command: Complete, Validate,
// then runF when a test gave one, else run, which sees neither cobra nor the Factory.
func Run[O Shaped](cmd *cobra.Command, f *Factory, o O, runF func(O) error, run func(context.Context, O) error) error {
	o.Complete(f)
	if err := o.Validate(cmd); err != nil {
		return err
	}
	if runF != nil {
		return runF(o)
	}
	return run(cmd.Context(), o)
}
