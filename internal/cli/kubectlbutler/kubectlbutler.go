// Package kubectlbutler assembles kubectl-butler, the kubectl plugin: `kubectl butler ...`
// runs butlerctl's commands and `kubectl butler admin ...` butleradm's, one binary for
// krew to install. kubectl finds it on PATH and passes it every argument after "butler".
package kubectlbutler

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/wiring"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// Binary is the plugin's file name, which is how kubectl finds it.
const Binary = "kubectl-butler"

// Main runs the plugin with args (without the program name) and returns the exit code.
// "admin" is recognised only as the first argument: with flags before it the word could
// be a flag's value, so that case is refused with advice rather than guessed at.
func Main(args []string) int {
	f := wiring.NewFactory(Binary)
	if len(args) > 0 && args[0] == "admin" {
		return root.Run(f, adminCmd(f), args[1:])
	}
	return root.Run(f, ctlCmd(f), args)
}

func ctlCmd(f *factory.Factory) *cobra.Command {
	cmd := butlerctl.NewCmd(f)
	named(cmd, "kubectl butler")
	cmd.AddCommand(&cobra.Command{
		Use:   "admin",
		Short: "Platform operators' commands (butleradm): kubectl butler admin COMMAND",
		// Reached only when flags come before "admin"; Main dispatches it otherwise.
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return cmdutil.UsageError(`"admin" must come first: kubectl butler admin COMMAND [flags]`)
		},
	})
	return cmd
}

func adminCmd(f *factory.Factory) *cobra.Command {
	cmd := butleradm.NewCmd(f)
	named(cmd, "kubectl butler admin")
	return cmd
}

// named makes help and usage say how the plugin is typed, not the binary's name.
func named(cmd *cobra.Command, name string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[cobra.CommandDisplayNameAnnotation] = name
}
