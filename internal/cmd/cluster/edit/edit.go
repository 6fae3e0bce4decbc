// Package edit is `butlerctl cluster edit`: change a tenant cluster's spec, from flags or
// in $KUBE_EDITOR / $EDITOR as kubectl edit does, with the server's update rules checked
// before one write that carries what was read.
package edit

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what cluster edit reads and writes: the team, who asks, the cluster and what
// its rules read (store.Reader), and the one write of its spec.
type Store interface {
	store.Reader
	store.ClusterUpgrader
	store.Kinded
}

var _ Store = store.Store(nil)

// Options are what cluster edit runs with: its flags and argument and, from Complete, its
// dependencies.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]
	// Changes are the spec flags given, checked by Validate.
	Changes Changes
	// Editor runs the editor on a file ($KUBE_EDITOR, else $EDITOR, else vi), with the
	// command's context; Complete sets it, tests replace it.
	Editor func(ctx context.Context, file string) error
	// EditorSet is whether $KUBE_EDITOR names an editor: off a terminal the edit runs only
	// then (an editor chosen for such tools, as a script or CI job sets it).
	EditorSet bool
}

// Spec is what cluster edit prints: the TenantCluster as written (or as it is, when
// unchanged); a refusal prints its violations (clusterview.Violation).
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "edit NAME --team TEAM [--cpu N] [--memory Q] [--disk Q] [--kubernetes-version V] [--workers N]",
		Short: "Change a tenant cluster's spec, with the server's update rules checked first",
		Long: `Change a tenant cluster's spec: the fields of the flags given, or, with no flag, the
whole spec in an editor ($KUBE_EDITOR, else $EDITOR, else vi), as kubectl edit does. An edit
that cannot be read, changes more than the spec, has a field the TenantCluster CRD does not
have, or is refused by the rules is reopened with the error at the top; saving it unchanged
again ends the edit with that error, and closing it unchanged (or empty) cancels it.

Before anything is written the change is judged by the rules the server applies to an
update, for the identity that asks: the team's maxNodesPerCluster and quotas, the
environment's limits, the ClusterCreationPolicies. A refusal prints the server's message
and exits 4, and nothing is written. Then one write: live, a JSON merge patch of the spec
fields that changed carrying the resourceVersion that was read (a cluster changed since
is a conflict, exit 1, and nothing is written); on manifests, an in-place edit of the
cluster's document that keeps comments and everything else.

With no flag, off a terminal, the editor runs only when $KUBE_EDITOR names it; otherwise
it is a usage error (exit 2).`,
		Example: `  butlerctl cluster edit bob-checkout --team payments --memory 32Gi --workers 4
  butlerctl cluster edit bob-checkout --team payments --kubernetes-version v1.31.4 --dry-run
  KUBE_EDITOR=nano butlerctl cluster edit bob-checkout --team payments`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd)
	o.Changes.addFlags(cmd.Flags())
	factory.AddDryRun(cmd, f)
	return cmd
}

// Complete takes the editor and parses the flags; it reads nothing yet.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	ed := editorFromEnv()
	o.EditorSet = ed.set
	o.Editor = ed.run(o.IO)
	return o.Changes.parse(cmd.Flags())
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if !o.Changes.Any() && !o.IO.IsStdinTTY() && !o.EditorSet {
		return cmdutil.UsageError("cluster edit with no flag opens an editor, and there is no terminal: pass --cpu, --memory, --disk, --kubernetes-version or --workers, or set KUBE_EDITOR")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, team, actor, cur, err := o.OperatedCluster(ctx, "edit")
	if err != nil {
		return err
	}
	j := &judge{o: o, s: s, team: team, actor: actor, cur: cur}
	if o.Changes.Any() {
		spec := o.Changes.Apply(cur.Spec)
		d, err := j.decide(ctx, spec)
		if err != nil {
			return err
		}
		if !d.Allowed() {
			return j.deny(d)
		}
		return j.write(ctx, spec, d)
	}
	return editInEditor(ctx, j)
}

// judge is one cluster as read, with who asks: what each proposed spec is judged against
// and written over.
type judge struct {
	o     *Options
	s     Store
	team  *v1alpha1.Team
	actor lookup.Actor
	cur   *v1alpha1.TenantCluster
}

// decide runs the server's update rules on the cluster with spec.
func (j *judge) decide(ctx context.Context, spec v1alpha1.TenantClusterSpec) (policy.Decision, error) {
	updated := j.cur.DeepCopy()
	updated.Spec = spec
	return lookup.AdmitUpdate(ctx, j.s, j.team, j.cur, updated, j.actor, j.o.IO.ErrOut)
}

// deny reports a refusal: for programs its violations, and the server's message (exit 4).
func (j *judge) deny(d policy.Decision) error {
	if err := j.o.Printer.Print(clusterview.DenialDoc(d)); err != nil {
		return err
	}
	return cmdutil.DeniedError(d.Err())
}

// write makes the cluster's spec spec in one write carrying what was read, and prints the
// cluster as written.
func (j *judge) write(ctx context.Context, spec v1alpha1.TenantClusterSpec, d policy.Decision) error {
	name := "tenantcluster.butler.butlerlabs.dev/" + j.cur.Name
	if equality.Semantic.DeepEqual(j.cur.Spec, spec) {
		return j.o.Printer.Done(clusterview.WithTypeMeta(*j.cur), name+" unchanged", "")
	}
	for _, w := range d.Warnings() {
		fmt.Fprintf(j.o.IO.ErrOut, "Warning: %s\n", inert.Text(w))
	}
	updated, res, err := j.s.EditCluster(ctx, j.cur, spec)
	if apierrors.IsConflict(err) {
		return fmt.Errorf("%s changed since it was read (resourceVersion %q); nothing was written: read it again and edit that: %w", name, j.cur.ResourceVersion, err)
	}
	if err != nil {
		return err
	}
	return j.o.Printer.Done(clusterview.WithTypeMeta(*updated), name+" edited", store.Where(res, j.s))
}
