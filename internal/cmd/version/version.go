// Package version is `version` on both binaries: the version, commit and build date
// stamped at build time (internal/buildinfo).
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/buildinfo"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
)

// View is version in -o json|yaml.
type View struct {
	Binary string `json:"binary"`
	buildinfo.Info
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Long: `Print the version, commit and build date of this binary, and the Go version and platform
it was built with. Release builds are stamped at build time; a build from a checkout reports
the commit Go recorded, and "dev" as its version. It never contacts a cluster.`,
		Example: `  butlerctl version
  butlerctl version -o json`,
		Args: cmdutil.NoArgs,
		// No configuration: the version is the binary's, whatever the config file or
		// BUTLER_* say (an `output: wide` there must not break it), and it starts faster.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.ValidateOutput("table", "json", "yaml"); err != nil {
				return err
			}
			v := View{Binary: cmd.Root().Name(), Info: buildinfo.Get()}
			out := f.IOStreams.Out
			if o := f.Options.Output; o == "json" || o == "yaml" {
				return printers.Print(out, o, v)
			}
			commit := v.Commit
			if v.Modified {
				commit += " (modified)"
			}
			_, err := fmt.Fprintf(out, "%s %s\ncommit: %s\nbuilt:  %s\ngo:     %s %s\n",
				v.Binary, v.Version, commit, v.Date, v.GoVersion, v.Platform)
			return err
		},
	}
}
