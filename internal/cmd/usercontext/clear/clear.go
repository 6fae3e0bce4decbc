// Package clear is `butlerctl context clear`: forget the default team and environment.
package clear

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
)

// Options are what context clear runs with: from Complete, its dependencies.
type Options struct {
	IO *iostreams.IOStreams
	// Config is --config: the file edited, else the default one.
	Config string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	return &cobra.Command{
		Use:   "clear",
		Short: "Forget the default team and environment",
		Long:  `Remove the team and environment keys from the config file; its other keys stay.`,
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.IO, o.Config = f.IOStreams, f.Options.Config
	return nil
}

func run(_ context.Context, o *Options) error {
	path, err := cmdutil.WritableConfigPath(o.Config)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		if err := cmdutil.SetConfigKeys(path, shared.Keys, nil); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.Out, "default context cleared in %s\n", path)
	return nil
}
