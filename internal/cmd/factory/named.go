package factory

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// NamedCommand wires the commands that act on one object by name (get, update, delete of
// a policy, a team, a provider): exactly one NAME argument (what says what it is, for the
// usage error), the print flags of spec, and -o checked before run is handed the name.
// It returns the print flags for run to print with.
func (f *Factory) NamedCommand(cmd *cobra.Command, what string, spec output.Spec, run func(cmd *cobra.Command, name string) error) *output.Flags {
	fl := output.Register(cmd, &f.Options.Output, spec)
	cmd.Args = cmdutil.ExactArgs(1, what)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := fl.Validate(cmd); err != nil {
			return err
		}
		return run(cmd, args[0])
	}
	return fl
}
