// Package usercontext is `butlerctl context use|show|clear`: the default team and
// environment, kept in the config file as its team and environment keys, which every
// --team and --environment falls back to (cmdutil.ApplyConfig); flags typed on the command
// line, and BUTLER_TEAM / BUTLER_ENVIRONMENT, win.
package usercontext

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Keys are the config keys a context is made of: the names of the flags they default.
var Keys = []string{"team", "environment"}

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
	cmd.AddCommand(newUse(f), newShow(f), newClear(f))
	return cmd
}

// View is what context show prints for programs.
type View struct {
	Team        string `json:"team,omitempty"`
	Environment string `json:"environment,omitempty"`
	// Source is where each came from: "config file PATH", or "BUTLER_TEAM" for the
	// environment variable.
	TeamSource        string `json:"teamSource,omitempty"`
	EnvironmentSource string `json:"environmentSource,omitempty"`
}

// Name is the prompt-friendly form: team/environment, team alone, or "".
func (v View) Name() string {
	if v.Team != "" && v.Environment != "" {
		return v.Team + "/" + v.Environment
	}
	return v.Team
}

func newUse(f *factory.Factory) *cobra.Command {
	var env string
	var print *output.Flags
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
			if err := print.Validate(cmd); err != nil {
				return err
			}
			// The environment key of the file fills --environment: only a typed one counts.
			if cmdutil.FlagSource(cmd.Flags(), "environment") != cmdutil.SourceCommandLine {
				env = ""
			}
			return use(cmd.Context(), f, print, args[0], env)
		},
	}
	print = output.Register(cmd, &f.Options.Output, output.Spec{Name: true})
	cmd.Flags().StringVar(&env, "environment", "", "The default environment, in TEAM")
	return cmd
}

func use(ctx context.Context, f *factory.Factory, print *output.Flags, team, env string) error {
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, err := lookup.Team(ctx, s, team)
	if err != nil {
		return err
	}
	if env != "" {
		e, err := lookup.RequireEnvironment(t, env)
		if err != nil {
			return err
		}
		env = e.Name
	}
	path, err := cmdutil.WritableConfigPath(f.Options.Config)
	if err != nil {
		return err
	}
	if err := cmdutil.SetConfigKeys(path, Keys, map[string]string{"team": t.Name, "environment": env}); err != nil {
		return err
	}
	v := View{Team: t.Name, Environment: env}
	return print.Printer(f.IOStreams).Print(output.Doc{One: true, View: v, Items: []output.Item{{Name: v.Name()}},
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "default context %s saved in %s\n", v.Name(), path)
			return err
		}})
}

func newShow(f *factory.Factory) *cobra.Command {
	var print *output.Flags
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show your default team and environment, and where they come from",
		Long: `Show the default team and environment and where each comes from. -o name prints
TEAM/ENVIRONMENT (or TEAM), and nothing when there is no default: made for a shell prompt.
It reads only the config file and the environment, never a cluster.`,
		Example: `  butlerctl context show
  PS1='[$(butlerctl context show -o name)] $ '`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := print.Validate(cmd); err != nil {
				return err
			}
			v, path, err := Current(f.Options.Config)
			if err != nil {
				return err
			}
			d := output.Doc{One: true, View: v, Text: func(w io.Writer) error { return text(w, v, path) }}
			if v.Name() != "" {
				d.Items = []output.Item{{Name: v.Name()}}
			}
			return print.Printer(f.IOStreams).Print(d)
		},
	}
	print = output.Register(cmd, &f.Options.Output, output.Spec{Name: true})
	return cmd
}

func text(w io.Writer, v View, path string) error {
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

// Current is the default context: BUTLER_TEAM and BUTLER_ENVIRONMENT over the config
// file's keys, and the config file's path.
func Current(configFlag string) (View, string, error) {
	path, err := cmdutil.WritableConfigPath(configFlag)
	if err != nil {
		return View{}, "", err
	}
	keys, err := cmdutil.ReadConfigKeys(path)
	if err != nil {
		return View{}, "", err
	}
	var v View
	for _, k := range Keys {
		val, src := strings.TrimSpace(keys[k]), "config file "+path
		if e := os.Getenv("BUTLER_" + strings.ToUpper(k)); e != "" {
			val, src = e, "BUTLER_"+strings.ToUpper(k)
		}
		if k == "team" {
			v.Team, v.TeamSource = val, src
		} else if val != "" {
			v.Environment, v.EnvironmentSource = val, src
		}
	}
	if v.Team == "" {
		v.TeamSource = ""
	}
	return v, path, nil
}

func newClear(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clear",
		Short: "Forget the default team and environment",
		Long:  `Remove the team and environment keys from the config file; its other keys stay.`,
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := cmdutil.WritableConfigPath(f.Options.Config)
			if err != nil {
				return err
			}
			if _, err := os.Stat(path); err == nil {
				if err := cmdutil.SetConfigKeys(path, Keys, nil); err != nil {
					return err
				}
			}
			fmt.Fprintf(f.IOStreams.Out, "default context cleared in %s\n", path)
			return nil
		},
	}
	return cmd
}
