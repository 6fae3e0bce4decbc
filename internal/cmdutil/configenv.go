package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// EnvSettings are the BUTLER_ variables that are no flag: read by the tools directly.
var EnvSettings = []string{"BUTLER_DEBUG", "BUTLER_HINTS", "BUTLER_IMPERSONATE", "BUTLER_NO_COLOR",
	// what `cluster run` gives its command, which may be these tools again
	"BUTLER_CLUSTER_NAME", "BUTLER_CLUSTER_NAMESPACE"}

// devEnv are the variables of this repository's build, tests and benchmarks (Makefile, hack/,
// bench/): set in a developer's shell and in the processes the tests start, never a typo.
var devEnv = []string{"BUTLER_GORELEASER", "BUTLER_GORELEASER_CONFIGCHECK", "BUTLER_TESTBIN_DIR", "BUTLER_TOOLS_DIR", "BUTLER_UPDATE_DEPLOY",
	"BUTLER_FLUX_TREE", "BUTLER_BENCH_*", "BUTLER_WEBHOOK_HA_*", "BUTLER_WEBHOOK_ABUSE_*"}

func isDevEnv(k string) bool {
	for _, d := range devEnv {
		if p, ok := strings.CutSuffix(d, "*"); ok && strings.HasPrefix(k, p) || k == d {
			return true
		}
	}
	return false
}

// envName is the variable that sets flag name: BUTLER_ and the name in capitals, - as _.
func envName(flag string) string {
	return "BUTLER_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// valueError is a value from the environment or the config file that flag fl refuses,
// naming where it came from (the variable, or the file and key) so that it can be found:
// the flag was never typed.
func valueError(source, path string, fl *pflag.Flag, value string, err error) error {
	var num *strconv.NumError
	if errors.As(err, &num) {
		err = num.Err // "invalid syntax": the rest repeats the value
	}
	what := fmt.Sprintf("invalid value %q for --%s (%s): %v", value, fl.Name, fl.Value.Type(), err)
	if source == SourceEnv {
		return UsageError("environment variable %s: %s", envName(fl.Name), what)
	}
	return UsageError("config file %s: key %q: %s", path, fl.Name, what)
}

// warnUnknownEnv warns about each BUTLER_ variable set in env that no flag of the tool and
// no setting reads, as an unknown key of the config file is warned about: a misspelt
// BUTLER_TEEM would otherwise be ignored without a word.
func warnUnknownEnv(root *cobra.Command, env []string, warn io.Writer) {
	known := map[string]bool{}
	for _, s := range EnvSettings {
		known[s] = true
	}
	var flags []string
	for n := range flagNames(root) {
		known[envName(n)] = true
		flags = append(flags, n)
	}
	var unknown []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "BUTLER_") && v != "" && !known[k] && !isDevEnv(k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		hint := "the variables are BUTLER_ and a flag's name, such as BUTLER_TEAM"
		if s := closest(strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(k, "BUTLER_")), "_", "-"), flags); s != "" {
			hint = fmt.Sprintf("did you mean %s?", envName(s))
		}
		fmt.Fprintf(warn, "Warning: environment variable %s is ignored (%s)\n", inert.Text(k), hint)
	}
}

// flagNames are the names of every flag anywhere in root's tree but config and help: the
// config file and the environment are shared by every command.
func flagNames(root *cobra.Command) map[string]bool {
	known := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(fl *pflag.Flag) { known[fl.Name] = true })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	delete(known, "config")
	delete(known, "help")
	return known
}

// environ is the process environment, a variable so tests can replace it.
var environ = os.Environ
