package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// defaultsNote follows a not-found or denied error with where --team and --environment
// came from when they were not typed (the config file, often set by `butlerctl context
// use`, or BUTLER_TEAM), so a stale default is not mistaken for a typo.
func defaultsNote(f *factory.Factory, ran *cobra.Command) {
	if ran == nil {
		return
	}
	for _, name := range []string{"team", "environment"} {
		fl := ran.Flags().Lookup(name)
		if fl == nil || fl.Value.String() == "" {
			continue
		}
		var from string
		switch cmdutil.FlagSource(ran.Flags(), name) {
		case cmdutil.SourceConfig:
			path := cmdutil.ConfigPath(f.Options.Config)
			from = fmt.Sprintf("the default from the config file %s (butlerctl context use); pass --%s, or run butlerctl context clear", path, name)
		case cmdutil.SourceEnv:
			from = fmt.Sprintf("from BUTLER_%s; pass --%s, or unset it", strings.ToUpper(name), name)
		default:
			continue
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "Note: --%s %s is %s\n", name, fl.Value.String(), from)
	}
}
