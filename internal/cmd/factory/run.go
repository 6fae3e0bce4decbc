package factory

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/interrupt"
)

// Completer is a command's Options that take more than Deps takes: from the Factory, the
// command line or the arguments, as kubectl's Complete does. It may fail (a flag that does
// not parse, an argument that names nothing); it reads no store.
type Completer interface {
	Complete(f *Factory, cmd *cobra.Command, args []string) error
}

// Validator is a command's Options with rules of their own, checked after Complete and
// before anything is read. It is pure: it reads nothing and changes nothing.
type Validator interface {
	Validate() error
}

// SharedCompleter and SharedValidator are Completer and Validator for the Options of a
// noun's shared package that its commands embed (providerutil.FindOptions, ...). Run calls
// them before the command's own, so a command never calls them itself: there is no
// super-call to forget.
type SharedCompleter interface {
	CompleteShared(f *Factory, cmd *cobra.Command, args []string) error
}

// SharedValidator: see SharedCompleter.
type SharedValidator interface {
	ValidateShared() error
}

// Graceful is Options whose run stops cleanly on an interrupt: Run gives it a context
// that the first Ctrl-C (or SIGTERM) cancels, so work in flight can finish, and a second
// one ends the process as usual. Other commands end on the first, as any program does.
type Graceful interface {
	StopsOnInterrupt()
}

// withDeps is Options that embed Deps: Run checks -o and completes the Deps itself.
type withDeps interface {
	completeDeps(f *Factory)
	validatePrint(cmd *cobra.Command) error
}

// Run is the body of a command's RunE, the same for every command: -o checked and the
// Deps completed, then Complete and Validate (the shared Options' first), then runF when
// a test gave one, else run, which sees neither cobra nor the Factory.
func Run[O any](cmd *cobra.Command, args []string, f *Factory, o O, runF func(O) error, run func(context.Context, O) error) error {
	if d, ok := any(o).(withDeps); ok {
		if err := d.validatePrint(cmd); err != nil {
			return err
		}
		d.completeDeps(f)
	}
	if c, ok := any(o).(SharedCompleter); ok {
		if err := c.CompleteShared(f, cmd, args); err != nil {
			return err
		}
	}
	if c, ok := any(o).(Completer); ok {
		if err := c.Complete(f, cmd, args); err != nil {
			return err
		}
	}
	if v, ok := any(o).(SharedValidator); ok {
		if err := v.ValidateShared(); err != nil {
			return err
		}
	}
	if v, ok := any(o).(Validator); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if runF != nil {
		return runF(o)
	}
	ctx := cmd.Context()
	if _, ok := any(o).(Graceful); ok {
		var stop context.CancelFunc
		ctx, stop = interrupt.Graceful(ctx)
		defer stop()
	}
	return run(ctx, o)
}
