// Package policy groups the ClusterCreationPolicy commands (docs/cluster-creation-policies.md):
// in butlerctl the rules that apply to you, in butleradm their management.
package policy

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/create"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/get"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/update"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/validate"
)

// NewCmd returns `policy`; admin is butleradm's group.
func NewCmd(f *factory.Factory, admin bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "policy",
		Aliases: []string{"policies", "ccp", "clustercreationpolicy", "clustercreationpolicies"},
		Short:   "See the ClusterCreationPolicies (images, networks, clusters, storage containers) that apply",
	}
	if !admin {
		cmd.AddCommand(list.NewCmd(f, nil))
		return cmd
	}
	cmd.Short = "Manage ClusterCreationPolicies (images, networks, clusters, storage containers)"
	cmd.AddCommand(list.NewAdminCmd(f, nil), create.NewCmd(f, nil), update.NewCmd(f, nil), get.NewCmd(f, nil),
		validate.NewCmd(f, nil), delete.NewCmd(f, nil))
	return cmd
}
