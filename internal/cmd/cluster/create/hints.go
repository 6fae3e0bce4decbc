package create

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/nextstep"
)

// hinted adds the next step to a refusal for people: on a terminal (or BUTLER_HINTS=1),
// never for programs (-o json|yaml|…), which read the violations.
func (o *Options) hinted(err error, hint []string) error {
	if !o.IO.HintsEnabled() || o.Print.Structured() {
		return err
	}
	return cmdutil.WithHint(err, nextstep.Wrap(hint, o.IO.Width()))
}

// roleHint is the next step of a requester without operator rights.
func roleHint(team, env string) []string {
	in := fmt.Sprintf("team %q", team)
	flag := ""
	if env != "" {
		in, flag = fmt.Sprintf("%q", env), " --environment "+env
	}
	return []string{
		fmt.Sprintf("Next: ask a team admin for operator in %s (butlerctl team access %s).", in, team),
		fmt.Sprintf("More: butlerctl auth can-i create cluster --team %s%s", team, flag),
	}
}

// commandLine is the command as typed, rebuilt from its arguments and the flags set on
// the command line, so a hint can name the same command with --explain.
func commandLine(cmd *cobra.Command, args []string) string {
	parts := append([]string{cmd.CommandPath()}, args...)
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if fl.Name == "output" {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+fl.Name+" "+quote(v))
			}
			return
		}
		parts = append(parts, "--"+fl.Name+" "+quote(fl.Value.String()))
	})
	return strings.Join(parts, " ")
}

// quote leaves plain words as they are and single-quotes the rest for a POSIX shell.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
