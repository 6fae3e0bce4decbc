package create

import (
	"context"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// checkMode refuses the combinations of --write, --dry-run and --wait that the store in
// use cannot honour.
func (o *Options) checkMode() error {
	if o.Write && !o.Offline {
		return cmdutil.UsageError("--write works on manifests: pass --manifests DIR")
	}
	if o.Write && o.FromStdin {
		return cmdutil.UsageError("cannot --write: the manifests come from stdin; pass --manifests DIR or FILE")
	}
	if o.Offline && o.DryRun == "server" {
		return cmdutil.UsageError("--dry-run=server needs a live cluster to send to; on manifests, cluster create already prints without writing")
	}
	if o.Offline && o.Wait {
		return cmdutil.UsageError("--wait needs a live cluster: on manifests nothing provisions the cluster")
	}
	if o.Write && o.DryRun != "none" {
		return cmdutil.UsageError("--write and --dry-run are opposites: pass one of them")
	}
	return nil
}

// createLive creates the cluster for real once the preflight passed; the server still has
// the last word.
func createLive(ctx context.Context, o *Options, s Store, p *plan) error {
	if _, err := s.CreateCluster(ctx, p.Cluster, p.Addons); err != nil {
		return err
	}
	if err := o.Printer.Print(planDoc(p, "created", "")); err != nil {
		return err
	}
	if o.Wait {
		return waitReady(ctx, o, s, p.Cluster)
	}
	return nil
}
