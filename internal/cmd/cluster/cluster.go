// Package cluster groups the tenant cluster commands; butleradm has the ones that limit
// a cluster's writes.
package cluster

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/create"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/describe"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/edit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/events"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/extend"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/freeze"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/kubeconfig"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/reap"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/run"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/scale"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/thaw"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/upgrade"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
)

// NewCmd returns `cluster`; adm gives butleradm's verbs: list and get, to see write
// states, and freeze and thaw, to change them (creating clusters stays with butlerctl).
func NewCmd(f *factory.Factory, adm bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cluster",
		Aliases: []string{"clusters", "tc"},
		Short:   "Create, list, inspect, scale and delete tenant clusters",
	}
	if adm {
		cmd.Short = "Inspect tenant clusters, limit their writes (freeze, thaw), reap expired ones"
		cmd.AddCommand(list.NewCmd(f, nil), get.NewCmd(f, nil), freeze.NewCmd(f, nil), thaw.NewCmd(f, nil), reap.NewCmd(f, nil))
		return cmd
	}
	cmd.AddCommand(create.NewCmd(f, nil), run.NewCmd(f, nil), list.NewCmd(f, nil), get.NewCmd(f, nil), scale.NewCmd(f, nil), edit.NewCmd(f, nil), delete.NewCmd(f, nil), kubeconfig.NewCmd(f, nil))
	cmd.AddCommand(upgrade.NewCmd(f, nil), describe.NewCmd(f, nil), events.NewCmd(f, nil), extend.NewCmd(f, nil))
	return cmd
}
