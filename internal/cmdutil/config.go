package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/butlerdotdev/butler-toolkit/pkg/editdist"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
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

// Where a flag's value came from, as FlagSource reports it.
const (
	SourceDefault     = ""       // not set: the flag's default
	SourceCommandLine = "flag"   // typed on the command line
	SourceEnv         = "env"    // BUTLER_<FLAG>
	SourceConfig      = "config" // the config file
	sourceAnnotation  = "butler.butlerlabs.dev/source"
)

// MaxConfigBytes bounds the config file: it holds a few flag values.
const MaxConfigBytes = 1 << 20

// ApplyConfig fills every flag the user did not set from BUTLER_<FLAG> in the environment,
// then from the config file, so a default team or identity needs no typing. Flags given on
// the command line always win. A filled flag is not marked Changed (it was not typed):
// FlagSource says where it came from and IsSet whether it was set at all.
func ApplyConfig(cmd *cobra.Command, configFlag string) error {
	return ApplyConfigWarn(cmd, configFlag, nil)
}

// ApplyConfigWarn is ApplyConfig that also warns on warn (when not nil) about each key of
// the config file that is no flag of the tool, naming the key and the file.
func ApplyConfigWarn(cmd *cobra.Command, configFlag string, warn io.Writer) error {
	if warn != nil {
		warnUnknownEnv(cmd.Root(), environ(), warn)
	}
	path := ConfigPath(configFlag)
	var b []byte
	if path != "" {
		var err error
		if b, err = fileio.ReadFile(path, MaxConfigBytes); err != nil {
			if configFlag == "" && errors.Is(err, fs.ErrNotExist) {
				return applyConfig(cmd, "", nil, warn)
			}
			return UsageError("reading config %s: %v", path, err)
		}
	}
	return applyConfig(cmd, path, b, warn)
}

// ReapplyConfig takes the config file's settings again from data, the bytes of another
// copy of the file at path (nil: no file), in place of what ApplyConfig read from disk:
// every flag the file set goes back to its default first. For a command that must not
// take its settings from the tree it judges (check --base reads the base revision's copy
// of a config file in the repository). The environment and the command line still win.
func ReapplyConfig(cmd *cobra.Command, path string, data []byte) error {
	var firstErr error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if firstErr != nil || FlagSource(cmd.Flags(), fl.Name) != SourceConfig {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			var def []string
			if d := strings.Trim(fl.DefValue, "[]"); d != "" {
				def = strings.Split(d, ",")
			}
			firstErr = sv.Replace(def)
		} else {
			firstErr = fl.Value.Set(fl.DefValue)
		}
		delete(fl.Annotations, sourceAnnotation)
	})
	if firstErr != nil {
		return firstErr
	}
	if data == nil {
		path = ""
	}
	return applyConfig(cmd, path, data, nil)
}

// applyConfig is ApplyConfigWarn with the config file read: data from path ("" for none).
func applyConfig(cmd *cobra.Command, path string, b []byte, warn io.Writer) error {
	v := viper.New()
	v.SetEnvPrefix("BUTLER")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	file := viper.New() // the file alone, to tell its values from the environment's
	if path != "" {
		for _, x := range []*viper.Viper{v, file} {
			x.SetConfigType("yaml")
			if err := x.ReadConfig(bytes.NewReader(b)); err != nil {
				return UsageError("reading config %s: %v", path, err)
			}
		}
		if warn != nil {
			warnUnknownKeys(cmd.Root(), file.AllKeys(), path, warn)
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
		if _, nested := v.Get(fl.Name).(map[string]any); nested {
			return // output: {format: x} is no value: its keys were warned about as unknown
		}
		source := SourceConfig
		if os.Getenv(envName(fl.Name)) != "" { // viper ignores empty ones too
			source = SourceEnv
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			if err := sv.Replace(v.GetStringSlice(fl.Name)); err != nil {
				firstErr = valueError(source, path, fl, strings.Join(v.GetStringSlice(fl.Name), ","), err)
				return
			}
		} else if err := fl.Value.Set(v.GetString(fl.Name)); err != nil {
			firstErr = valueError(source, path, fl, v.GetString(fl.Name), err)
			return
		}
		if fl.Annotations == nil {
			fl.Annotations = map[string][]string{}
		}
		fl.Annotations[sourceAnnotation] = []string{source}
	})
	return firstErr
}

// FlagSource says where the value of flag name of fs came from: SourceCommandLine,
// SourceEnv, SourceConfig, or SourceDefault when it was not set.
func FlagSource(fs *pflag.FlagSet, name string) string {
	fl := fs.Lookup(name)
	switch {
	case fl == nil:
		return SourceDefault
	case fl.Changed:
		return SourceCommandLine
	case len(fl.Annotations[sourceAnnotation]) > 0:
		return fl.Annotations[sourceAnnotation][0]
	}
	return SourceDefault
}

// IsSet reports whether flag name was given: typed, or from the environment or the config
// file. It is what Changed meant before the configuration stopped pretending to be typed.
func IsSet(fs *pflag.FlagSet, name string) bool { return FlagSource(fs, name) != SourceDefault }

// warnUnknownKeys warns about each config key that is no flag anywhere in the tool: the
// file is shared by every command, so a key is known when any command has that flag.
// Nested keys (teem.x) and misspellings (teem) are both unknown.
func warnUnknownKeys(root *cobra.Command, keys []string, path string, warn io.Writer) {
	known := flagNames(root)
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if known[k] && k != "config" && k != "help" {
			continue
		}
		hint := "its keys are flag names, such as team, as or manifests"
		if s := closest(k, names); s != "" {
			hint = fmt.Sprintf("did you mean %q?", s)
		}
		fmt.Fprintf(warn, "Warning: config file %s: unknown key %q is ignored (%s)\n", path, k, hint)
	}
}

// closest is the flag name nearest to key (at most 2 edits away, or key's first part), or "".
func closest(key string, names []string) string {
	first, _, _ := strings.Cut(key, ".")
	best, bestD := "", 3
	sort.Strings(names)
	for _, n := range names {
		if n == "config" || n == "help" {
			continue
		}
		if d := editdist.Levenshtein(first, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// FlagErrorFunc turns cobra's flag errors into usage errors (exit 2). Under a group, a
// mistyped subcommand followed by its flags (`env lsit --team T`) is reported as the
// unknown command it is, not as the group's unknown flag.
func FlagErrorFunc(cmd *cobra.Command, err error) error {
	if u := UnknownSubcommand(cmd); u != nil {
		return u
	}
	return UsageError("%s\nSee '%s --help'.", withFlagSuggestion(cmd, err), cmd.CommandPath())
}

// UnknownSubcommand is the usage error, with cobra's suggestions, for a group command
// (no Run of its own) left with a positional argument: a subcommand that does not exist.
// nil otherwise, and with --help.
func UnknownSubcommand(c *cobra.Command) error {
	if c.Runnable() || !c.HasAvailableSubCommands() {
		return nil
	}
	if h, _ := c.Flags().GetBool("help"); h {
		return nil
	}
	rest := c.Flags().Args()
	if len(rest) == 0 {
		return nil
	}
	if right := verbFirst(c, rest); right != "" {
		return verbFirstError(c, rest, right)
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
