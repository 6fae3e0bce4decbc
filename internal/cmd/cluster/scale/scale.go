// Package scale is `butlerctl cluster scale`: check a new worker count against the
// server's rules, then change that one field.
package scale

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/nextstep"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Attempts is how often the command reads, checks and patches before it gives up on a
// cluster that keeps changing under it (each Conflict starts again from a fresh read).
var Attempts = 4

// Store is what cluster scale reads and writes: the team, who asks, the cluster and what
// its rules read (store.Reader), and the one write.
type Store interface {
	store.Reader
	store.ClusterWriter
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are what cluster scale runs with: its flags and argument and, from Complete,
// its dependencies.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]

	Workers int32
}

// Spec is what cluster scale prints: the TenantCluster as written (or as it is, when
// unchanged); a refusal, which has no object, prints its violations (clusterview.Violation).
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "scale NAME --team TEAM --workers N",
		Short: "Change a tenant cluster's worker count, with every quota checked first",
		Long: `Change the number of worker nodes of a tenant cluster. The new count is checked first
against the rules the server applies to an update: the team's maxNodesPerCluster, and on a
scale up the team's CPU, memory and storage quotas. A denial prints the server's own message
and exits 4, and nothing is sent.

Only spec.workers.replicas changes: live, one JSON merge patch of that field, carrying the
resourceVersion that was read, so a cluster changed meanwhile is read and checked again
(a few times) rather than overwritten; on manifests, an in-place edit of the cluster's
document that keeps comments and everything else.

Scaling needs operator or admin in the cluster's environment (exit 4 otherwise).`,
		Example: `  butlerctl cluster scale bob-checkout --team payments --workers 5
  butlerctl cluster scale carol-sandbox-1 --team payments --workers 1 --manifests examples/payments --as carol@example.com`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	fl.Int32VarP(&o.Workers, "workers", "w", 0, "Worker nodes wanted (required, at least 1)")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete checks the flags before anything is read.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	if !cmdutil.IsSet(cmd.Flags(), "workers") {
		return cmdutil.UsageError("--workers is required")
	}
	if o.Workers < 1 {
		return cmdutil.UsageError("--workers must be at least 1, got %d", o.Workers)
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, team, actor, err := o.TeamAndActor(ctx)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		cur, err := lookup.Cluster(ctx, s, team, o.Name)
		if err != nil {
			return err
		}
		if _, err := lookup.RequireOperator(team, cur, actor, "scale"); err != nil {
			return err
		}
		from := cur.Spec.Workers.Replicas
		if from == o.Workers {
			return o.printResult(cur, from, false, "")
		}
		decision, err := preflight(ctx, s, team, cur, o.Workers, actor, o.IO.ErrOut)
		if err != nil {
			return err
		}
		if !decision.Allowed() {
			return o.deny(team, decision)
		}
		for _, w := range decision.Warnings() {
			fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", inert.Text(w))
		}
		updated, written, err := s.ScaleCluster(ctx, cur, o.Workers)
		if apierrors.IsConflict(err) && attempt < Attempts {
			continue // changed since it was read: read, check and try again
		}
		if err != nil {
			return err
		}
		return o.printResult(updated, from, true, store.Where(written, s))
	}
}

// preflight runs the server's update rules on the cluster with its new worker count.
func preflight(ctx context.Context, s store.Reader, team *v1alpha1.Team, cur *v1alpha1.TenantCluster, workers int32, actor lookup.Actor, errOut io.Writer) (policy.Decision, error) {
	updated := cur.DeepCopy()
	updated.Spec.Workers.Replicas = workers
	return lookup.AdmitUpdate(ctx, s, team, cur, updated, actor, errOut)
}

// printResult prints the cluster as written for programs, or what changed for people;
// offline it says which file.
func (o *Options) printResult(c *v1alpha1.TenantCluster, from int32, changed bool, location string) error {
	name := "tenantcluster.butler.butlerlabs.dev/" + c.Name
	msg := fmt.Sprintf("%s scaled: %d -> %d worker(s)", name, from, c.Spec.Workers.Replicas)
	if !changed {
		msg = fmt.Sprintf("%s unchanged: already %d worker(s)", name, c.Spec.Workers.Replicas)
		location = ""
	}
	return o.Printer.Done(clusterview.WithTypeMeta(*c), msg, location)
}

// deny reports a preflight denial: the server's aggregate message on stderr (exit 4), its
// next step for people, and for programs the violations.
func (o *Options) deny(team *v1alpha1.Team, d policy.Decision) error {
	if err := o.Printer.Print(clusterview.DenialDoc(d)); err != nil {
		return err
	}
	err := cmdutil.DeniedError(d.Err())
	if !o.IO.HintsEnabled() || o.Print.Structured() {
		return err
	}
	r := nextstep.Refusal{Verb: "scale", Team: team, Decision: d, More: "butlerctl team get " + team.Name}
	return cmdutil.WithHint(err, nextstep.Wrap(r.Lines(), o.IO.Width()))
}
