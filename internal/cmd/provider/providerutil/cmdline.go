package providerutil

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cmdlineAnnotation lists the flags given on the command line, recorded before the
// configuration file and BUTLER_* variables fill in the others.
const cmdlineAnnotation = "butler.butlerlabs.dev/command-line-flags"

// RecordCommandLine notes which flags of cmd were typed on the command line. Call it
// before cmdutil.ApplyConfig, which marks the flags it fills as changed too.
func RecordCommandLine(cmd *cobra.Command) {
	var names []string
	cmd.Flags().Visit(func(f *pflag.Flag) { names = append(names, f.Name) })
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[cmdlineAnnotation] = "," + strings.Join(names, ",") + ","
}

// OnCommandLine reports whether a flag was typed on the command line, as opposed to
// filled from the configuration (a default team there must not make every provider
// team-scoped). Without a record, every changed flag counts.
func OnCommandLine(cmd *cobra.Command, name string) bool {
	rec, ok := cmd.Annotations[cmdlineAnnotation]
	if !ok {
		return cmd.Flags().Changed(name)
	}
	return strings.Contains(rec, ","+name+",")
}
