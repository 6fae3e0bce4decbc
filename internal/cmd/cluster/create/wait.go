package create

import (
	"context"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file is what cluster create does live beyond creating: --dry-run=server, and
// --wait, which follows the new cluster until its phase is Ready (shared.WaitReady).

// serverDryRun sends the cluster and its addons with server-side dry run and prints what
// the server returned, as the rendering is printed (YAML unless -o says otherwise).
func serverDryRun(ctx context.Context, o *Options, s Store, p *plan) error {
	cs, err := s.Server()
	if err != nil {
		return cmdutil.UsageError("--dry-run=server needs a live cluster (the %s store has no server)", s.Kind())
	}
	c, addons, err := cs.DryRunCreateCluster(ctx, p.Cluster, p.Addons)
	if err != nil {
		return err
	}
	answered := *p
	answered.Cluster, answered.Addons = c, addons
	return o.Printer.Print(planDoc(&answered, "", ""))
}

// waitReady waits for the cluster just created, with progress on stderr.
func waitReady(ctx context.Context, o *Options, s shared.Watched, c *v1alpha1.TenantCluster) error {
	return shared.WaitReady(ctx, o.IO, o.Now, s, c, o.Timeout, o.Print.Structured())
}
