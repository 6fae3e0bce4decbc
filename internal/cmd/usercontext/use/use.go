// Package use is `butlerctl context use`: make a team, and an environment in it, the
// default, after checking both exist.
package use

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Spec is what context use prints: the context saved, -o name as TEAM/ENVIRONMENT.
var Spec = output.Spec{Name: true}

// Store is what context use reads: the team (and its environments).
type Store = store.Reader

var _ Store = store.Store(nil)

// Options are what context use runs with: its argument and flag and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	// Config is --config: the file written, else the default one.
	Config      string
	Team        string
	Environment string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "use TEAM [--environment E]",
		Short: "Make a team (and an environment) the default",
		Long: `Make TEAM the default team, and E the default environment (without --environment, the
default environment is cleared). The team, and the environment in it, are checked to exist
first (on a live cluster, or the manifests given), so a typo is not saved. The config file
is rewritten atomically; its other keys stay.`,
		Example: `  butlerctl context use payments --environment dev
  butlerctl context use payments --manifests examples/payments`,
		Args: cmdutil.ExactArgs(1, "a TEAM name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Team = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().StringVar(&o.Environment, "environment", "", "The default environment, in TEAM")
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet. The environment key of the config file fills --environment: only a typed one counts, so
// the default environment is cleared without it.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, _ []string) error {
	o.Config = f.Options.Config
	if cmdutil.FlagSource(cmd.Flags(), "environment") != cmdutil.SourceCommandLine {
		o.Environment = ""
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	t, err := lookup.Team(ctx, s, o.Team)
	if err != nil {
		return err
	}
	env := o.Environment
	if env != "" {
		e, err := lookup.RequireEnvironment(t, env)
		if err != nil {
			return err
		}
		env = e.Name
	}
	path, err := cmdutil.WritableConfigPath(o.Config)
	if err != nil {
		return err
	}
	if err := cmdutil.SetConfigKeys(path, shared.Keys, map[string]string{"team": t.Name, "environment": env}); err != nil {
		return err
	}
	v := shared.View{Team: t.Name, Environment: env}
	return o.Printer.Print(output.Doc{One: true, View: v, Items: []output.Item{{Name: v.Name()}},
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "default context %s saved in %s\n", v.Name(), path)
			return err
		}})
}
