// Package cani is `auth can-i`: whether you may create, scale or delete clusters in a
// team or environment, and why.
package cani

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/nextstep"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Answer is can-i's computed view, printed by -o json|yaml|jsonpath|go-template (docs/output.md).
type Answer struct {
	Allowed     bool     `json:"allowed"`
	Verb        string   `json:"verb"`
	User        string   `json:"user"`
	Team        string   `json:"team"`
	Environment string   `json:"environment,omitempty"`
	Role        string   `json:"role"`
	Reasons     []string `json:"reasons"`
}

// Spec is what can-i prints: its answer (Answer). Wide is accepted and shows the same text.
var Spec = output.Spec{Wide: true}

// Store is what can-i reads: the team, its clusters and who asks.
type Store = store.Reader

// Options are the flags and arguments of can-i.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Verb        string
	Team        string
	Environment string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "can-i (create|scale|delete) cluster --team TEAM [--environment ENV]",
		Short: "Say whether you may create, scale or delete clusters, and why (exit 0 yes, 4 no)",
		Long: `Say whether you may create, scale or delete clusters in a team or one of its
environments, and why. For create, the environment's caps and your own per-member cap are
counted too. Prints yes or no; exits 0 for yes and 4 for no.`,
		Example:   `  butlerctl auth can-i create cluster --team payments --environment prod --as carol@example.com`,
		ValidArgs: []string{"create", "scale", "delete"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 || (args[1] != "cluster" && args[1] != "clusters" && args[1] != "tenantclusters") {
				return cmdutil.UsageError("want: can-i (create|scale|delete) cluster --team TEAM")
			}
			switch args[0] {
			case "create", "scale", "delete":
				return nil
			}
			return cmdutil.UsageError("unknown verb %q: want create, scale or delete", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Verb = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamRequired)
	cmd.Flags().StringVar(&o.Environment, "environment", "", "Environment of the team")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	verb, team, env := o.Verb, o.Team, o.Environment
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, team)
	if err != nil {
		return err
	}
	switch {
	case verb == "create":
		// The same questions as cluster create: an environment where the team has some
		// (exit 2), one of its names (exit 3).
		if err := shared.CheckEnvironment(t, env); err != nil {
			return err
		}
	case env != "":
		if _, err := lookup.RequireEnvironment(t, env); err != nil {
			return err
		}
	}
	a, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return err
	}
	role := policy.EnvironmentRole(t, env, a.Identity, a.PlatformAdmin)
	ans := Answer{Verb: verb, User: a.Identity.Username, Team: t.Name, Environment: env, Role: role.Role.String(), Allowed: true}
	scope := fmt.Sprintf("team %q", t.Name)
	if env != "" {
		scope = fmt.Sprintf("environment %q", env)
	}
	if role.Role.CanOperate() {
		ans.Reasons = append(ans.Reasons, fmt.Sprintf("role %s in %s (%s)", role.Role, scope, role.Reason))
	} else {
		ans.Allowed = false
		ans.Reasons = append(ans.Reasons, fmt.Sprintf("role %s in %s (%s); %s needs operator or admin", role.Role, scope, role.Reason, verb))
	}
	if verb == "create" {
		reasons, ok := nextstep.CapReasons(t, env, clusters, a.Identity.Username)
		ans.Reasons, ans.Allowed = append(ans.Reasons, reasons...), ans.Allowed && ok
	}
	if err := o.Printer.Print(output.Doc{One: true, View: ans, Text: ans.write}); err != nil {
		return err
	}
	if !ans.Allowed {
		return &cmdutil.SilentError{Code: cmdutil.ExitDenied}
	}
	return nil
}

// write is the human answer: yes or no, then the reasons.
func (a Answer) write(w io.Writer) error {
	word := "yes"
	if !a.Allowed {
		word = "no"
	}
	if _, err := fmt.Fprintln(w, word); err != nil {
		return err
	}
	for _, r := range a.Reasons {
		// Reasons quote names and roles' reasons from manifests.
		if _, err := fmt.Fprintf(w, "  - %s\n", inert.Text(r)); err != nil {
			return err
		}
	}
	return nil
}
