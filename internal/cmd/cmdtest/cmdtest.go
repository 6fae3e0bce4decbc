// Package cmdtest runs a command in a unit test: over a store of internal/store/storetest,
// with fixed I/O and clock, returning the exit code the root would.
package cmdtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Result is what a command run produced.
type Result struct {
	Code   int
	Err    error
	Stdout string
	Stderr string
}

// Run builds a command with newCmd over s and runs it with args; output is "table"
// unless -o is set through opts. stdin feeds prompts; tty makes the streams terminals.
func Run(t testing.TB, s store.Store, newCmd func(*factory.Factory) *cobra.Command, opts factory.GlobalOptions, stdin string, tty bool, args ...string) Result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	ios.SetTTY(tty, tty, tty)
	if opts.Output == "" {
		opts.Output = "table"
	}
	f := &factory.Factory{
		IOStreams: ios,
		Options:   &opts,
		Now:       Now,
		NewStore:  func(context.Context, *factory.Factory) (store.Store, error) { return s, nil },
	}
	cmd := newCmd(f)
	cmd.SetArgs(args)
	cmd.SetIn(in)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetFlagErrorFunc(cmdutil.FlagErrorFunc)
	err := cmdutil.Explain(cmd.ExecuteContext(context.Background()))
	return Result{Code: cmdutil.CodeOf(err), Err: err, Stdout: out.String(), Stderr: errOut.String()}
}

// Msg is the error message, "" without an error.
func (r Result) Msg() string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Error()
}

// Cmd adapts a command's NewCmd(f, runF) to Run, with runF nil: the command runs whole.
func Cmd[O any](newCmd func(*factory.Factory, func(*O) error) *cobra.Command) func(*factory.Factory) *cobra.Command {
	return func(f *factory.Factory) *cobra.Command { return newCmd(f, nil) }
}

// RunF runs the command as Run does, with runF in place of its run, and returns the
// Options runF was handed (nil when it was not called) with the result: what the command
// parsed and completed.
func RunF[O any](t testing.TB, s store.Store, newCmd func(*factory.Factory, func(*O) error) *cobra.Command, opts factory.GlobalOptions, args ...string) (*O, Result) {
	t.Helper()
	var got *O
	r := Run(t, s, func(f *factory.Factory) *cobra.Command {
		return newCmd(f, func(o *O) error { got = o; return nil })
	}, opts, "", false, args...)
	return got, r
}
