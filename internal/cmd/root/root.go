// Package root builds the top of both binaries: global flags, configuration, and the run
// loop that turns errors into exit codes.
package root

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// New returns a root command with the global flags of both binaries.
func New(f *factory.Factory, use, short, long string) *cobra.Command {
	o := f.Options
	cmd := &cobra.Command{
		Use:           use,
		Short:         short,
		Long:          long,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Arguments are checked by guardGroups, as under every group, so that a mistyped
		// command is one usage error with one exit code at every level.
		Args: cobra.ArbitraryArgs,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			warn := f.IOStreams.ErrOut
			if cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd {
				warn = nil // completion stays silent
			}
			if err := cmdutil.ApplyConfigWarn(cmd, o.Config, warn); err != nil {
				return err
			}
			if err := outputTaken(cmd); err != nil {
				return err
			}
			if err := o.IdentityFlags(cmd); err != nil {
				return err
			}
			if o.NoColor {
				f.IOStreams.SetColorDisabled()
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(cmdutil.FlagErrorFunc)
	cmd.SetUsageTemplate(usageTemplate(cmd))
	wrapHelp(cmd, f.IOStreams.Width)
	topic := environmentTopic(use)
	cmd.AddCommand(topic)
	cmd.SetHelpCommand(helpCommand(topic))
	p := cmd.PersistentFlags()
	p.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path to the kubeconfig file")
	p.StringVar(&o.Context, "context", "", "The kubeconfig context to use")
	p.StringVarP(&o.Namespace, "namespace", "n", "", "Namespace (defaults to the team's namespace)")
	p.StringVar(&o.As, "as", "", "Act as this user (an e-mail); offline, the identity to check as")
	p.StringArrayVar(&o.AsGroups, "as-group", nil, "Act as a member of this group (repeatable)")
	// The default is butlerclient.DefaultRequestTimeout: a gate in CI must not hang.
	p.StringVar(&o.RequestTimeout, "request-timeout", "30s", "How long each server request may take (e.g. 1m, or seconds); 0 waits forever")
	p.StringArrayVar(&o.Manifests, "manifests", nil, "Work on manifests: a file, a directory (read recursively) or - for stdin (repeatable)")
	p.StringArrayVar(&o.Exclude, "exclude", nil, "With --manifests: leave out, unread, the paths below each directory that match this pattern (.gitignore's syntax, relative to the directory; repeatable), after those of its .butlerignore")
	p.BoolVar(&o.Strict, factory.StrictFlag, false, "With --manifests: refuse documents of API groups other than Butler's and Steward's, and YAML that is no Kubernetes object, instead of skipping them")
	p.StringVarP(&o.Output, "output", "o", "", "Output format: json, yaml, name, jsonpath=…, go-template=…, custom-columns=… and more; each command's help lists its own (default: a table or text for people)")
	p.BoolVar(&o.NoColor, "no-color", false, "Disable colour (also NO_COLOR)")
	p.StringVar(&o.Config, "config", "", "Config file (default $XDG_CONFIG_HOME/butler/config.yaml, then ~/.butler/config.yaml)")
	return cmd
}

// outputTaken refuses -o typed for a command that prints nothing to format (webhook serve,
// completion, help): a usage error (exit 2) rather than a flag silently ignored. A default
// from the config file or BUTLER_OUTPUT is meant for the commands that print, and is left
// alone. A command that prints declares its formats with output.Register.
func outputTaken(cmd *cobra.Command) error {
	if cmdutil.FlagSource(cmd.Flags(), "output") != cmdutil.SourceCommandLine {
		return nil
	}
	if _, ok := cmd.Annotations[output.AnnotationFormats]; ok {
		return nil
	}
	return cmdutil.UsageError("%s prints nothing that -o could format: leave out -o", cmd.CommandPath())
}
