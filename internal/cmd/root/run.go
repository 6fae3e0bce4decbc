package root

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/names"
	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// IssuesURL is where an internal error asks to be reported.
const IssuesURL = "https://github.com/butlerdotdev/butler-toolkit/issues"

// Run executes cmd with args and returns the process exit code; errors go to stderr. A
// panic in a command is recovered into ExitInternal with a one-line message (the stack
// only with BUTLER_DEBUG set), so a crash never passes for bad input (exit 2).
func Run(f *factory.Factory, cmd *cobra.Command, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(f.IOStreams.ErrOut, "Error: internal error: %v; please report it at %s\n", r, IssuesURL)
			if os.Getenv("BUTLER_DEBUG") != "" {
				_, _ = f.IOStreams.ErrOut.Write(debug.Stack())
			} else {
				fmt.Fprintln(f.IOStreams.ErrOut, "(set BUTLER_DEBUG=1 to print the stack trace)")
			}
			code = cmdutil.ExitInternal
		}
	}()
	// The store's lock on the manifests, also after a panic, for callers that run again
	// in-process.
	defer f.Close()
	var unknown error
	guardGroups(cmd, &unknown)
	cmd.SetArgs(args)
	cmd.SetIn(f.IOStreams.In)
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	ran, err := cmd.ExecuteContextC(context.Background())
	if err == nil {
		err = unknown
	}
	if err == nil {
		filterNote(f, ran)
		return cmdutil.ExitOK
	}
	err = cmdutil.Explain(err) // a store's error gets its advice and exit code
	var silent *cmdutil.SilentError
	var cancelled *cmdutil.CancelledError
	switch {
	case errors.As(err, &silent):
	case errors.As(err, &cancelled):
		fmt.Fprintln(f.IOStreams.ErrOut, printable(cancelled.Msg))
	default:
		// Errors quote file names, keys and values from manifests, and URLs: each line made
		// inert, every URL's credentials redacted (printable).
		fmt.Fprintf(f.IOStreams.ErrOut, "Error: %s\n", printable(err.Error()))
		var hinted *cmdutil.HintedError
		if errors.As(err, &hinted) {
			for _, l := range hinted.Hint {
				fmt.Fprintln(f.IOStreams.ErrOut, printable(l))
			}
		}
		// A name that names nothing: on a terminal, the command that lists the names.
		var unknown *names.NotFoundError
		if errors.As(err, &unknown) && ran != nil && f.IOStreams.HintsEnabled() {
			fmt.Fprintln(f.IOStreams.ErrOut, inert.Lines(unknown.Next(ran.Root().DisplayName())))
		}
	}
	code = cmdutil.CodeOf(err)
	if code == cmdutil.ExitNotFound || code == cmdutil.ExitDenied {
		defaultsNote(f, ran)
	}
	return code
}

// guardGroups makes a mistyped subcommand under a group (`cluster lst`) a usage error.
// cobra checks unknown subcommands only at the root: under a group that has no Run of
// its own it shows the group's help and exits 0. Its help function runs exactly then, with
// the group's flags parsed, so it is where the leftover argument is caught; `help cluster`
// and `cluster --help` still print the help.
func guardGroups(root *cobra.Command, unknown *error) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if err := cmdutil.UnknownSubcommand(c); err != nil {
			*unknown = err
			return
		}
		help(c, args)
	})
}

// printable is a message as it is printed: each line inert, and the credentials of every
// URL in it redacted (client-go's errors quote the server's URL, with its user name).
func printable(msg string) string { return inert.Lines(redact.URLs(msg)) }
