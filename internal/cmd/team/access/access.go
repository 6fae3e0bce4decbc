// Package access is `team access`: every member's effective role per environment, and why.
package access

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	var env string
	cmd := &cobra.Command{
		Use:   "access TEAM",
		Short: "Show every member's effective role in each environment, and why",
		Long: `Show every member's effective role in each environment of the team. Environment access
can only raise a member's team role, never lower it; team admins are admin everywhere.`,
		Example: `  butlerctl team access payments --manifests examples/payments
  butlerctl team access payments --environment prod -o json`,
		Args: cmdutil.ExactArgs(1, "a TEAM name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), f, args[0], env)
		},
	}
	cmd.Flags().StringVar(&env, "environment", "", "Only this environment")
	return cmd
}

func run(ctx context.Context, f *factory.Factory, name, env string) error {
	if err := f.ValidateOutput("table", "wide", "json", "yaml"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, err := lookup.Team(ctx, s, name)
	if err != nil {
		return err
	}
	if env != "" {
		if _, err := lookup.RequireEnvironment(t, env); err != nil {
			return err
		}
	}
	entries := policy.AccessTable(t, env)
	out := f.IOStreams.Out
	switch f.Options.Output {
	case "json", "yaml":
		if entries == nil {
			entries = []policy.AccessEntry{}
		}
		return printers.Print(out, f.Options.Output, entries)
	}
	tb := printers.NewTable(f.IOStreams.ColorEnabled(), "USER", "ENVIRONMENT", "ROLE", "SOURCE", "WHY")
	for _, e := range entries {
		envName := e.Environment
		if envName == "" {
			envName = "-"
		}
		tb.Row(e.User, envName, e.Role, e.Source, e.Reason)
	}
	return tb.Render(out)
}
