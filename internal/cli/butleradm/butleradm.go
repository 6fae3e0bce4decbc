// Package butleradm assembles the platform operators' binary.
package butleradm

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/wiring"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply/applyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/auth"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/check"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/diff"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/doctor"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/env"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/explain"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/network"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/user"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/version"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook"
	"github.com/butlerdotdev/butler-toolkit/internal/completion"
	doctorchecks "github.com/butlerdotdev/butler-toolkit/internal/doctor"
)

// NewCmd returns the butleradm command tree.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := root.New(f, "butleradm", "Manage Butler teams, environments, providers and cluster write permissions",
		`butleradm manages teams and their environments (limits, access, cluster defaults), moves
existing clusters into environments, registers infrastructure providers with their
credentials, freezes a cluster's control plane, and serves Butler's admission rules as a
webhook. Every change is checked against the server's rules before it is written.

Work on a live cluster (your kubeconfig) or on manifests on disk with --manifests.

Exit codes: 0 ok, 1 error, 2 usage or bad input, 3 not found, 4 denied by policy or permissions,
70 internal error (a bug: please report it).`)
	cmd.Example = `  export BUTLER_MANIFESTS=examples/payments BUTLER_AS=alice@example.com
  butleradm team get payments
  butleradm env update dev --team payments --max-clusters-per-member 3
  butleradm env migrate --team payments --environment prod ledger-legacy --dry-run
  butleradm provider list
  butleradm help environment`
	cmd.AddCommand(team.NewCmd(f, true), env.NewCmd(f, true), auth.NewCmd(f))
	cmd.AddCommand(provider.NewCmd(f), policy.NewCmd(f, true))
	cmd.AddCommand(apply.NewCmd(f, applyutil.Operator, nil))
	cmd.AddCommand(cluster.NewCmd(f, true))
	cmd.AddCommand(user.NewCmd(f))
	cmd.AddCommand(version.NewCmd(f, nil), explain.NewCmd(f, nil))
	cmd.AddCommand(doctor.NewCmd(f, doctorchecks.Operator, nil))
	cmd.AddCommand(check.NewCmd(f, nil), diff.NewCmd(f, nil))
	cmd.AddCommand(webhook.NewCmd(f))
	cmd.AddCommand(network.NewCmd(f))
	version.Enable(cmd)
	completion.Register(cmd, f) // last: completes the whole tree
	return cmd
}

// Main runs butleradm and returns its exit code.
func Main() int {
	f := wiring.NewFactory("butleradm")
	return root.Run(f, NewCmd(f), osArgs())
}
