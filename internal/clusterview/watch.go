package clusterview

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Watch prints each new state of the clusters src yields, one row at a time (the header
// once, before the first), as kubectl get --watch does; -o json|yaml print each state as
// an object. It runs until interrupted (Ctrl-C: exit 0). The WRITES column is left out:
// reading every control plane on every change would cost a request per row.
func Watch(ctx context.Context, fl *output.Flags, streams *iostreams.IOStreams, withNamespace bool, now func() time.Time, src clusterwatch.Source) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	first := true
	return clusterwatch.Run(ctx, src, func(c *v1alpha1.TenantCluster, _ bool) error {
		d := Rows([]v1alpha1.TenantCluster{*c}, withNamespace, now())
		d.One = true
		d.Empty = ""
		if !first {
			fl.NoHeaders = true
		}
		first = false
		return fl.Printer(streams).Print(d)
	})
}
