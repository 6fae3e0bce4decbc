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

// narrowing are the listings a default --team or --environment narrows, by command path
// under the root, and the flags that do: what they show is not everything the user may
// think they asked for.
var narrowing = map[string][]string{
	"cluster list":  {"team", "environment"},
	"team access":   {"environment"},
	"policy list":   {"team", "environment"},
	"provider list": {"team"},
	"upgrade plan":  {"team", "environment"},
}

// filterNote follows a listing that a default narrowed (a saved context in the config
// file, or BUTLER_TEAM or BUTLER_ENVIRONMENT) with a note saying so on stderr, so that a
// short list is not mistaken for all there is. A typed flag needs no note.
func filterNote(f *factory.Factory, ran *cobra.Command) {
	if ran == nil {
		return
	}
	path := strings.TrimPrefix(ran.CommandPath(), ran.Root().CommandPath()+" ")
	for _, name := range narrowing[path] {
		fl := ran.Flags().Lookup(name)
		if fl == nil || fl.Value.String() == "" {
			continue
		}
		undo := fmt.Sprintf("pass --%s to choose another", name)
		switch {
		case name == "environment":
			undo = "pass --environment= for every environment"
		case ran.Flags().Lookup("all-namespaces") != nil:
			undo = "pass -A for every team"
		}
		var from string
		switch cmdutil.FlagSource(ran.Flags(), name) {
		case cmdutil.SourceConfig:
			from = fmt.Sprintf("the default from the config file %s (butlerctl context use); %s, or run butlerctl context clear", cmdutil.ConfigPath(f.Options.Config), undo)
		case cmdutil.SourceEnv:
			from = fmt.Sprintf("from BUTLER_%s; %s, or unset it", strings.ToUpper(name), undo)
		default:
			continue
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "Note: only %s %q is shown: --%s is %s\n", name, fl.Value.String(), name, from)
	}
}
