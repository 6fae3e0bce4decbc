package cmdutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// ConfigPath finds the config file: --config, then $XDG_CONFIG_HOME/butler/config.yaml,
// then ~/.butler/config.yaml. "" when none exists.
func ConfigPath(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	var candidates []string
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		candidates = append(candidates, filepath.Join(x, "butler", "config.yaml"))
	} else if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".config", "butler", "config.yaml"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".butler", "config.yaml"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return ""
}

// ApplyConfig fills every flag the user did not set from BUTLER_<FLAG> in the environment,
// then from the config file, so a default team or identity needs no typing. Flags given on
// the command line always win.
func ApplyConfig(cmd *cobra.Command, configFlag string) error {
	v := viper.New()
	v.SetEnvPrefix("BUTLER")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if path := ConfigPath(configFlag); path != "" {
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			if configFlag == "" && os.IsNotExist(err) {
				return nil
			}
			return UsageError("reading config %s: %v", path, err)
		}
	}
	var firstErr error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Changed || firstErr != nil || fl.Name == "config" || fl.Name == "help" {
			return
		}
		if !v.IsSet(fl.Name) {
			return
		}
		var values []string
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			values = v.GetStringSlice(fl.Name)
			if err := sv.Replace(values); err != nil {
				firstErr = UsageError("config value for %q: %v", fl.Name, err)
			}
			fl.Changed = true
			return
		}
		if err := fl.Value.Set(v.GetString(fl.Name)); err != nil {
			firstErr = UsageError("config value for %q: %v", fl.Name, err)
			return
		}
		fl.Changed = true
	})
	if firstErr != nil {
		return firstErr
	}
	return nil
}

// FlagErrorFunc turns cobra's flag errors into usage errors (exit 2). Under a group, a
// mistyped subcommand followed by its flags (`env lsit --team T`) is reported as the
// unknown command it is, not as the group's unknown flag.
func FlagErrorFunc(cmd *cobra.Command, err error) error {
	if u := UnknownSubcommand(cmd); u != nil {
		return u
	}
	return UsageError("%v\nSee '%s --help'.", err, cmd.CommandPath())
}

// UnknownSubcommand is the usage error, with cobra's suggestions, for a group command
// (no Run of its own) left with a positional argument: a subcommand that does not exist.
// nil otherwise, and with --help.
func UnknownSubcommand(c *cobra.Command) error {
	if c.Runnable() || !c.HasAvailableSubCommands() || !c.HasParent() {
		return nil
	}
	if h, _ := c.Flags().GetBool("help"); h {
		return nil
	}
	rest := c.Flags().Args()
	if len(rest) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", rest[0], c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra sets its default on the root only
	}
	if s := c.SuggestionsFor(rest[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return UsageError("%s\nRun '%s --help' for usage.", msg, c.CommandPath())
}

// ExactArgs is cobra.ExactArgs with a usage error.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return UsageError("%s requires %s\nSee '%s --help'.", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}

// NoArgs rejects positional arguments with a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return UsageError("unexpected argument %q\nSee '%s --help'.", args[0], cmd.CommandPath())
	}
	return nil
}

// RequireFlag reports a missing required flag as a usage error.
func RequireFlag(name, value string) error {
	if value == "" {
		return UsageError("--%s is required", name)
	}
	return nil
}
