// Package butlerctl assembles the developers' binary.
package butlerctl

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/wiring"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/addon"
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
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/team"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/upgrade"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/usercontext"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/version"
	"github.com/butlerdotdev/butler-toolkit/internal/completion"
	doctorchecks "github.com/butlerdotdev/butler-toolkit/internal/doctor"
)

// NewCmd returns the butlerctl command tree.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := root.New(f, "butlerctl", "Create and inspect tenant clusters on Butler",
		`butlerctl creates, lists and inspects tenant clusters, and shows your teams, environments,
roles and quota. Every request is checked against the server's rules first, so you learn the
answer, and why, before anything is sent.

Work on a live cluster (your kubeconfig) or on manifests on disk with --manifests.

Exit codes: 0 ok, 1 error, 2 usage or bad input, 3 not found, 4 denied by policy or permissions,
70 internal error (a bug: please report it).`)
	cmd.Example = `  export BUTLER_MANIFESTS=examples/payments BUTLER_AS=carol@example.com
  butlerctl auth whoami
  butlerctl team get payments
  butlerctl cluster list --team payments
  butlerctl cluster create web --team payments --environment dev --explain
  butlerctl auth can-i create cluster --team payments --environment dev
  butlerctl help environment`
	cmd.AddCommand(cluster.NewCmd(f, false), team.NewCmd(f, false), env.NewCmd(f, false), policy.NewCmd(f, false), auth.NewCmd(f), apply.NewCmd(f, applyutil.Developer, nil), version.NewCmd(f, nil))
	cmd.AddCommand(doctor.NewCmd(f, doctorchecks.Developer, nil))
	cmd.AddCommand(addon.NewCmd(f), usercontext.NewCmd(f), check.NewCmd(f, nil), diff.NewCmd(f, nil), upgrade.NewCmd(f), explain.NewCmd(f, nil))
	version.Enable(cmd)
	completion.Register(cmd, f) // last: completes the whole tree
	return cmd
}

// Main runs butlerctl and returns its exit code.
func Main() int {
	f := wiring.NewFactory("butlerctl")
	return root.Run(f, NewCmd(f), osArgs())
}
