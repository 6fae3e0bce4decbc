// Package version is `version` on both binaries: the version, commit and build date
// stamped at build time (internal/buildinfo).
package version

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/buildinfo"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// View is version's computed view, printed by -o json|yaml|jsonpath|go-template
// (docs/output.md).
type View struct {
	Binary string `json:"binary"`
	buildinfo.Info
}

// Spec is what version prints: its View; there is no API object.
var Spec = output.Spec{}

// Options are what version runs with: from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the -o flags and the printer they choose; version reads no
	// store.
	factory.Deps[factory.NoStore]
	// Binary is the name of the binary asked, butlerctl or butleradm.
	Binary string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Long: `Print the version, commit and build date of this binary, and the Go version and platform
it was built with. Release builds are stamped at build time; a build from a checkout reports
the commit Go recorded, and "dev" as its version. It never contacts a cluster.`,
		Example: `  butlerctl version
  butlerctl version -o json
  butlerctl version -o jsonpath='{.version}'`,
		Args: cmdutil.NoArgs,
		// No configuration: the version is the binary's, whatever the config file or
		// BUTLER_* say (an `output: wide` there must not break it), and it starts faster.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Binary = cmd.Root().Name()
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

func run(_ context.Context, o *Options) error {
	v := View{Binary: o.Binary, Info: buildinfo.Get()}
	return o.Printer.Print(output.Doc{One: true, View: v, Text: v.write})
}

// write is the human output: binary and version, then commit, build date and Go.
func (v View) write(w io.Writer) error {
	commit := v.Commit
	if v.Modified {
		commit += " (modified)"
	}
	_, err := fmt.Fprintf(w, "%s %s\ncommit: %s\nbuilt:  %s\ngo:     %s %s\n",
		v.Binary, v.Version, commit, v.Date, v.GoVersion, v.Platform)
	return err
}

var addTemplateFunc sync.Once

// Enable gives root the --version flag gh and kubectl users reach for, printing what the
// version command prints. The build information is read only when the flag is used.
func Enable(root *cobra.Command) {
	root.Version = buildinfo.Version
	// cobra's template functions are one map for the process: added once, since commands
	// are built on several goroutines in tests.
	addTemplateFunc.Do(func() {
		cobra.AddTemplateFunc("butlerVersionText", func(binary string) string {
			var b strings.Builder
			_ = View{Binary: binary, Info: buildinfo.Get()}.write(&b)
			return b.String()
		})
	})
	root.SetVersionTemplate(`{{butlerVersionText .DisplayName}}`)
	// Defined here so that cobra adds no -v: kubectl users read -v as log verbosity.
	root.Flags().Bool("version", false, "Print the version, as the version command does")
}
