// Package describe is `butlerctl cluster describe`: one tenant cluster and what hangs off
// it (conditions, control plane, workers, addons, recent events) as a tree, in the manner
// of clusterctl describe cluster.
package describe

import (
	"context"
	"io"
	"os"

	"github.com/butlerdotdev/butler-toolkit/internal/store"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Store is what cluster describe reads: the team and the cluster (store.Reader), its
// addons and events, its control plane; Kind says whether events are to be had.
type Store interface {
	store.Reader
	store.Describer
	store.ControlPlanes
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are the flags and arguments of cluster describe.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]
}

// Spec: the tree for people, the view (only: describe has no object of its own) for
// programs.
var Spec = output.Spec{}

// TerminalWidth is stdout's width when it is a terminal (the tree cuts long messages to
// it); a variable so tests can fix it.
var TerminalWidth = func() int {
	w, _, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil || w <= 0 {
		return 80
	}
	return w
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "describe NAME --team TEAM",
		Short: "Show a tenant cluster as a tree: conditions, control plane, workers, addons, events",
		Long: `Show one tenant cluster and what hangs off it, as a tree: its phase and conditions (with
their reason and age), environment, owner and provider; the Kubernetes version asked for
and the one running; its control plane (the Steward TenantControlPlane) and the writes it
blocks (butleradm cluster freeze); its workers, desired and ready; its addons (TenantAddon
objects and their phase); and, live, its latest events (butlerctl cluster events lists them
all).

A part that cannot be read (no permission, Steward not installed) is marked as such and
the rest is still shown. On a terminal the tree is coloured and long messages are cut to
its width; piped, it is plain and whole. -o json|yaml print the same view as data.`,
		Example: `  butlerctl cluster describe bob-checkout --team payments
  butlerctl cluster describe bob-checkout --team payments -o yaml`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, team, c, err := o.Cluster(ctx)
	if err != nil {
		return err
	}
	v, err := build(ctx, s, team, c)
	if err != nil {
		return err
	}
	tty := o.IO.IsStdoutTTY()
	width := 0
	if tty {
		width = TerminalWidth()
	}
	tr := &tree{color: o.IO.ColorEnabled(), width: width, now: o.Now()}
	return o.Printer.Print(output.Doc{
		One:   true,
		View:  v,
		Items: []output.Item{{View: v, Name: "tenantcluster.butler.butlerlabs.dev/" + c.Name}},
		Text:  func(w io.Writer) error { return tr.write(w, v) },
	})
}
