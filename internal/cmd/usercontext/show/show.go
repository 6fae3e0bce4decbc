// Package show is `butlerctl context show`: the default team and environment and where
// each comes from, from the config file and the environment only.
package show

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Spec is what context show prints: the context, -o name as TEAM/ENVIRONMENT.
var Spec = output.Spec{Name: true}

// Options are what context show runs with: from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the -o flags and the printer they choose; show reads the
	// config file and the environment, no store.
	factory.Deps[factory.NoStore]
	// Config is --config; Getenv reads BUTLER_TEAM and BUTLER_ENVIRONMENT.
	Config string
	Getenv func(string) string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show your default team and environment, and where they come from",
		Long: `Show the default team and environment and where each comes from. -o name prints
TEAM/ENVIRONMENT (or TEAM), and nothing when there is no default: made for a shell prompt.
It reads only the config file and the environment, never a cluster.`,
		Example: `  butlerctl context show
  PS1='[$(butlerctl context show -o name)] $ '`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Config, o.Getenv = f.Options.Config, os.Getenv
	return nil
}

func run(_ context.Context, o *Options) error {
	v, path, err := shared.Current(o.Config, o.Getenv)
	if err != nil {
		return err
	}
	d := output.Doc{One: true, View: v, Text: func(w io.Writer) error { return text(w, v, path) }}
	if v.Name() != "" {
		d.Items = []output.Item{{Name: v.Name()}}
	}
	return o.Printer.Print(d)
}

func text(w io.Writer, v shared.View, path string) error {
	if v.Team == "" && v.Environment == "" {
		_, err := fmt.Fprintf(w, "No default team: pass --team, or set one with butlerctl context use TEAM (config file %s)\n", path)
		return err
	}
	line := func(k, val, src string) {
		if val == "" {
			val = "-"
		} else {
			val += " (" + src + ")"
		}
		fmt.Fprintf(w, "%-13s%s\n", k+":", val)
	}
	line("Team", v.Team, v.TeamSource)
	line("Environment", v.Environment, v.EnvironmentSource)
	return nil
}
