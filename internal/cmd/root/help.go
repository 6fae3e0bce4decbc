package root

import (
	"bytes"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/textwrap"
)

// helpSections are added after cobra's usage: the command's -o formats (internal/output
// records them) and its details.
const helpSections = `{{with index .Annotations "butler.output/formats"}}
Output formats (-o): {{butlerFormats .}}
{{end}}{{with index .Annotations "` + cmdutil.AnnotationDetails + `"}}
{{.}}
{{end}}`

// helpCommand is cobra's help command, except that "help environment" is the topic, not
// env (whose alias it also is).
func helpCommand(topic *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command; help environment: variables and the config file",
		Run: func(c *cobra.Command, args []string) {
			if len(args) == 1 && args[0] == topic.Name() {
				cobra.CheckErr(topic.Help())
				return
			}
			cmd, _, err := c.Root().Find(args)
			if cmd == nil || err != nil {
				c.Printf("Unknown help topic %#q\n", args)
				cobra.CheckErr(c.Root().Usage())
				return
			}
			cmd.InitDefaultHelpFlag()
			cobra.CheckErr(cmd.Help())
		},
	}
}

func init() {
	cobra.AddTemplateFunc("butlerFormats", func(s string) string { return strings.ReplaceAll(s, ",", ", ") })
}

// usageTemplate is cobra's with helpSections after the flags.
func usageTemplate(cmd *cobra.Command) string {
	return cmd.UsageTemplate() + helpSections
}

// environmentTopic is `help environment`: every way to set a flag without typing it, and
// the variables that are no flag.
func environmentTopic(binary string) *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables, the config file, and which wins",
		Long: `Any flag can be set without typing it, from the environment or a config file.
Precedence, first wins: the flag on the command line, then BUTLER_<FLAG>, then the
config file, then the flag's default. A value a flag refuses names its variable or its
file and key; a BUTLER_ variable that is no flag and none of those below is warned about.

BUTLER_<FLAG>        any flag, upper case, - as _: BUTLER_TEAM=payments,
                     BUTLER_MANIFESTS=examples/payments, BUTLER_AS=carol@example.com,
                     BUTLER_OUTPUT=json, BUTLER_REQUEST_TIMEOUT=1m

The config file, YAML, its keys the flags' long names:
  --config FILE, else $XDG_CONFIG_HOME/butler/config.yaml (~/.config/butler/config.yaml),
  else ~/.butler/config.yaml. A key that is no flag is warned about, naming the file.

  team: payments
  as: carol@example.com
  manifests: [/src/gitops/butler]

An identity from BUTLER_AS or as: is for manifests; on a live cluster only a typed --as
impersonates, unless BUTLER_IMPERSONATE=1.

Variables that are no flag:
  BUTLER_IMPERSONATE=1   let --as and --as-group from the environment or file impersonate
  BUTLER_HINTS=1|0       after a refusal, the next steps for people: on (also when piped)
                         or off; by default only when stderr is a terminal, never with -o json
  NO_COLOR, BUTLER_NO_COLOR
                         no colour (as --no-color); colour is only ever on a terminal
  COLUMNS                the width tables fit into, also when piped (default: the
                         terminal's; piped, no limit)
  BUTLER_DEBUG=1         print the stack trace of an internal error (exit 70)
  KUBECONFIG             the kubeconfig, as kubectl reads it (--kubeconfig wins)
  XDG_CONFIG_HOME        where the config file is looked for`,
		Example: "  BUTLER_TEAM=payments " + binary + " env list\n  " + binary + " help environment",
	}
}

// wrapHelp fits help to the terminal (textwrap.Help): cobra renders it, then its prose and
// flag descriptions are wrapped at width() (0, piped: as written).
func wrapHelp(root *cobra.Command, width func() int) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		w := width()
		if w <= 0 {
			help(c, args)
			return
		}
		out := c.OutOrStdout()
		var buf bytes.Buffer
		c.SetOut(&buf)
		help(c, args)
		c.SetOut(out)
		_, _ = io.WriteString(out, textwrap.Help(buf.String(), w))
	})
}
