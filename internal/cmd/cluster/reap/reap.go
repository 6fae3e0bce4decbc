// Package reap is `butleradm cluster reap`: delete the tenant clusters whose expiry
// (butler.butlerlabs.dev/expires-at, written by butlerctl cluster create --ttl and cluster
// run) has passed. Safe to run again and from several places at once: a cluster already
// gone counts as deleted, and each delete carries the uid and resourceVersion read.
package reap

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Spec: reap prints its Summary, a computed view.
var Spec = output.Spec{}

// Store is what cluster reap reads and writes: the team and the clusters (store.Reader),
// the deletes, the write permissions of a frozen cluster's control plane, and live the
// server that dry-runs each delete and deletes the cluster as it was read.
type Store interface {
	store.Reader
	store.ClusterWriter
	store.ControlPlanes
	store.Served
}

var _ Store = store.Store(nil)

// Options are what cluster reap runs with.
type Options struct {
	// Deps are the streams, the store, the clock and the printer, from Complete.
	factory.Deps[Store]

	Team          string
	AllNamespaces bool
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "reap (-A | --team TEAM) [--dry-run]",
		Short: "Delete tenant clusters whose expiry has passed",
		Long: `Delete the tenant clusters whose expiry (the annotation butler.butlerlabs.dev/expires-at,
written by butlerctl cluster create --ttl and cluster run) has passed, of one team or of
every namespace (-A), and print a summary. A frozen cluster (butleradm cluster freeze, or
cluster run --on-failure freeze) is thawed first, so its deletion is not blocked; live,
its delete is first sent as a server dry run, so a delete that RBAC or a policy refuses
leaves it frozen, and a delete refused after the thaw freezes it again.

Safe to run again and from several places at once: a cluster already gone counts as
deleted, and each delete carries the uid and resourceVersion that were read, so a cluster
extended meanwhile, or created again under the same name, is left alone. --dry-run lists
what would be deleted and changes nothing. An expiry that is no RFC 3339 time is reported
and that cluster left alone (exit 1 once the others are done); the server's RBAC decides
who may delete (exit 4 when it refused). The webhook's install bundle can run it on a
schedule (butleradm webhook install --reap-schedule).`,
		Example: `  butleradm cluster reap -A --dry-run
  butleradm cluster reap --team payments`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamFilter("the clusters"))
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "The clusters of every namespace")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if (o.Team == "") == !o.AllNamespaces {
		return cmdutil.UsageError("pass one of --team TEAM or -A (every namespace)")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	ns := ""
	if o.Team != "" {
		t, err := lookup.Team(ctx, s, o.Team)
		if err != nil {
			return err
		}
		ns = t.TeamNamespace()
	}
	clusters, err := s.ListClusters(ctx, ns)
	if err != nil {
		return err
	}
	sum := reap(ctx, o, s, clusters)
	if err := o.Printer.Print(output.Doc{One: true, View: sum, Text: func(w io.Writer) error { return text(w, sum, o.DryRun.On()) }}); err != nil {
		return err
	}
	switch {
	case len(sum.Refused) > 0:
		return &cmdutil.SilentError{Code: cmdutil.ExitDenied}
	case len(sum.Invalid) > 0 || len(sum.Failed) > 0:
		return &cmdutil.SilentError{Code: 1}
	}
	return nil
}

func text(w io.Writer, s Summary, dryRun bool) error {
	for _, c := range s.Deleted {
		verb := "deleted"
		if dryRun {
			verb = "would be deleted"
		}
		fmt.Fprintf(w, "tenantcluster.butler.butlerlabs.dev/%s %s (%s, expired %s)\n", inert.Text(c.Name), verb, inert.Text(c.Namespace), c.Expired)
	}
	for _, c := range s.Gone {
		fmt.Fprintf(w, "tenantcluster.butler.butlerlabs.dev/%s already gone (%s)\n", inert.Text(c.Name), inert.Text(c.Namespace))
	}
	for _, list := range []struct {
		what string
		cs   []Cluster
	}{{"expiry unreadable", s.Invalid}, {"refused", s.Refused}, {"failed", s.Failed}} {
		for _, c := range list.cs {
			fmt.Fprintf(w, "tenantcluster.butler.butlerlabs.dev/%s %s (%s): %s\n", inert.Text(c.Name), list.what, inert.Text(c.Namespace), inert.Text(c.Error))
		}
	}
	verb := "Reaped"
	if dryRun {
		verb = "Would reap"
	}
	_, err := fmt.Fprintf(w, "%s %d expired cluster(s) of %d checked (%d thawed first); %d not expired, %d without expiry.\n",
		verb, len(s.Deleted)+len(s.Gone), s.Checked, s.Thawed, s.NotExpired, s.NoExpiry)
	return err
}
