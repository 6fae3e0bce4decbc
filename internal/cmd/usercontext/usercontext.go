// Package usercontext is `butlerctl context use|show|clear`: the default team and
// environment, kept in the config file as its team and environment keys, which every
// --team and --environment falls back to (cmdutil.ApplyConfig); flags typed on the command
// line, and BUTLER_TEAM / BUTLER_ENVIRONMENT, win.
package usercontext

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	contextclear "github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext/clear"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext/show"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext/use"
)

// NewCmd returns `context`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Set, show or clear your default team and environment",
		Long: `Your default team and environment, kept in the config file (the team and environment
keys of $XDG_CONFIG_HOME/butler/config.yaml, or --config). Every --team and --environment
falls back to them; a flag typed on the command line, or BUTLER_TEAM and BUTLER_ENVIRONMENT
in the environment, wins.`,
	}
	cmd.AddCommand(use.NewCmd(f, nil), show.NewCmd(f, nil), contextclear.NewCmd(f, nil))
	return cmd
}
