package create

import (
	"context"
	"fmt"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// checkMode refuses the combinations of --write, --dry-run and --wait that the store in
// use cannot honour.
func (o *Options) checkMode(f *factory.Factory) error {
	if o.Write && !f.Offline() {
		return cmdutil.UsageError("--write works on manifests: pass --manifests DIR")
	}
	if o.Write && f.Options.Manifests[0] == "-" {
		return cmdutil.UsageError("cannot --write: the manifests come from stdin; pass --manifests DIR or FILE")
	}
	if f.Offline() && o.DryRun == "server" {
		return cmdutil.UsageError("--dry-run=server needs a live cluster to send to; on manifests, cluster create already prints without writing")
	}
	if f.Offline() && o.Wait {
		return cmdutil.UsageError("--wait needs a live cluster: on manifests nothing provisions the cluster")
	}
	if o.Write && o.DryRun != "none" {
		return cmdutil.UsageError("--write and --dry-run are opposites: pass one of them")
	}
	return nil
}

// createLive creates the cluster for real once the preflight passed; the server still has
// the last word.
func createLive(ctx context.Context, f *factory.Factory, s store.Store, p *plan, o *Options) error {
	if _, err := s.CreateCluster(ctx, p.cluster, p.addons); err != nil {
		return err
	}
	if err := o.Print.Printer(f.IOStreams).Print(planDoc(p, "created", "")); err != nil {
		return err
	}
	if o.Wait {
		return waitReady(ctx, f, s, p.cluster, o.Timeout, o.Print.Structured())
	}
	return nil
}

// exists reports whether a cluster of that name is among clusters (the namespace's).
func exists(clusters []v1alpha1.TenantCluster, name string) bool {
	for i := range clusters {
		if clusters[i].Name == name {
			return true
		}
	}
	return false
}

func where(team, env string) string {
	if env == "" {
		return fmt.Sprintf("team %q", team)
	}
	return fmt.Sprintf("environment %q of team %q", env, team)
}
