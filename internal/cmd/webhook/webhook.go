// Package webhook groups `butleradm webhook`: the policy library served as a validating
// admission webhook (serve), the configuration and RBAC to install it (manifests), and the
// whole installation (install).
package webhook

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/install"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/manifests"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/serve"
)

// NewCmd returns `webhook`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Serve Butler's admission rules as a validating webhook, and print its manifests",
		Long: `Serve the rules the CLIs check before every write as a validating admission webhook, so a
write with plain kubectl is held to them too: TenantCluster create and update (environment
label changes, environment and per-member caps, creator-email, ProviderConfig and team
limits, team restrictions), Team create and update (who may set limits, environment access
naming team members only) and ProviderConfig create, update and delete (provider settings,
IPAM, deleting one still in use).

The webhooks have the names and paths of Butler's own (vtenantcluster.kb.io, vteam.kb.io,
vproviderconfig.kb.io) and refuse with the same messages, byte for byte, as the CLIs'
preflight. Use it on clusters where Butler's webhooks are switched off, or in test clusters.
'webhook install' installs it (Deployment, Service, certificates, RBAC, configuration).`,
	}
	cmd.AddCommand(serve.NewCmd(f, nil), manifests.NewCmd(f, nil), install.NewCmd(f, nil))
	return cmd
}
