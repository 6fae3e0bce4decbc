// Package upgrade is `butlerctl cluster upgrade`: plan a Kubernetes version change against
// the supported path and the team's rules, then change that one field.
package upgrade

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what cluster upgrade reads and writes: the team, who asks, the cluster and what
// its update rules read (store.Reader), the one write and where it went, and the server
// that --wait watches.
type Store interface {
	store.Reader
	store.ClusterUpgrader
	store.Kinded
	store.Served
}

var _ Store = store.Store(nil)

// Options are what cluster upgrade runs with: its flags and argument and, from Complete,
// its dependencies.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]

	Version         string
	Yes             bool
	Wait            bool
	Timeout         time.Duration
	ResourceVersion string
}

// Spec: a line for people (after the plan); the cluster as written, or with --view the
// plan, for programs.
var Spec = output.Spec{Objects: true, View: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "upgrade NAME --team TEAM --kubernetes-version VERSION [--dry-run] [--yes] [--wait]",
		Short: "Change a tenant cluster's Kubernetes version, along a supported path",
		Long: `Change the Kubernetes version of a tenant cluster. A plan comes first: the current and
the target version, the team's allowed versions, and what the plan refuses and why. Refused
(exit 4, nothing sent): a downgrade, a change of major version, a skipped minor version (the
refusal names the supported path: one minor at a time, docs/rules.md §6.1), a version the
team does not allow, and anything else the server's update rules refuse.

Upgrading needs operator or admin in the cluster's environment (exit 4 otherwise). Without
--yes the command asks on a terminal and refuses when there is none (exit 2): an upgrade
cannot be undone. --dry-run prints the plan and sends nothing.

Only spec.kubernetesVersion changes: live, one JSON merge patch carrying the resourceVersion
that was read. If the cluster changed in between, the server's Conflict is reported (exit 1)
and nothing is retried: read it again and decide again. --resource-version makes the patch
depend on an earlier read instead (the one --dry-run -o json printed). Offline, the cluster's
document is edited in place, keeping comments and everything else.

--wait (live) follows the cluster until it is Ready at the new version (the controller's
status.observedState.kubernetesVersion), with progress on stderr.`,
		Example: `  butlerctl cluster upgrade bob-checkout --team payments --kubernetes-version v1.32.0 --dry-run
  butlerctl cluster upgrade bob-checkout --team payments --kubernetes-version v1.32.0 --yes --wait
  butlerctl cluster upgrade carol-sandbox-1 --team payments --kubernetes-version 1.31.2 --yes --manifests examples/payments --as carol@example.com`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	fl.StringVar(&o.Version, "kubernetes-version", "", "Kubernetes version wanted, e.g. v1.32.0 (required)")
	factory.AddDryRun(cmd, f)
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Wait, "wait", false, "Live: wait until the cluster is Ready at the new version")
	fl.DurationVar(&o.Timeout, "timeout", clusterwatch.DefaultTimeout, "How long --wait waits")
	fl.StringVar(&o.ResourceVersion, "resource-version", "", "Live: upgrade only if the cluster still has this resourceVersion (from an earlier read)")
	return cmd
}

// Complete normalises --kubernetes-version; a malformed version is bad input (exit 2). It
// reads nothing.
func (o *Options) Complete(*factory.Factory, *cobra.Command, []string) error {
	if o.Version == "" {
		return cmdutil.UsageError("--kubernetes-version is required")
	}
	v, err := policy.NormalizeVersion(o.Version)
	if err != nil {
		return cmdutil.UsageError("--kubernetes-version: %v", err)
	}
	o.Version = v
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.DryRun.On() && o.Wait {
		return cmdutil.UsageError("--wait cannot be combined with --dry-run: nothing is sent to wait for")
	}
	if o.Timeout <= 0 {
		return cmdutil.UsageError("--timeout must be positive, got %s", o.Timeout)
	}
	if o.Offline && (o.Wait || o.ResourceVersion != "") {
		return cmdutil.UsageError("--wait and --resource-version need a live cluster (manifests have no status and no resourceVersion)")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, team, actor, cur, err := o.OperatedCluster(ctx, "upgrade")
	if err != nil {
		return err
	}
	pl, err := plan(ctx, o.IO.ErrOut, s, team, cur, o.Version, actor)
	if err != nil {
		return err
	}
	pr := o.Printer
	if !pl.Allowed {
		return deny(pr, cur, pl)
	}
	if pl.Kind == policy.UpgradeNone {
		return pr.Done(cur, fmt.Sprintf("%s unchanged: already %s", resourceName(cur), cur.Spec.KubernetesVersion), "")
	}
	if o.DryRun.Client() {
		return printDryRun(o, cur, pl)
	}
	if err := confirm(o, cur, pl); err != nil {
		return err
	}
	if o.ResourceVersion != "" {
		cur = cur.DeepCopy()
		cur.ResourceVersion = o.ResourceVersion
	}
	updated, res, err := s.UpgradeCluster(ctx, cur, o.Version)
	if apierrors.IsConflict(err) {
		return cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("tenant cluster %q changed since it was read (resourceVersion %s), so nothing was upgraded: look at it again and run the upgrade again if it still applies: %w", cur.Name, cur.ResourceVersion, err))
	}
	if err != nil {
		return err
	}
	verb := "upgrade started" // live: the controller does the upgrade now
	if o.Offline {
		verb = "upgraded"
	}
	if err := pr.Done(updated, fmt.Sprintf("%s %s: %s -> %s", resourceName(updated), verb, pl.From, pl.To), store.Where(res, s)); err != nil {
		return err
	}
	if o.Wait {
		return wait(ctx, s, updated, o)
	}
	return nil
}

func resourceName(c *v1alpha1.TenantCluster) string {
	return "tenantcluster.butler.butlerlabs.dev/" + c.Name
}

// confirm asks on a terminal unless --yes; with no terminal it refuses (exit 2).
func confirm(o *Options, c *v1alpha1.TenantCluster, pl *Plan) error {
	if o.Yes {
		return nil
	}
	p := prompt.New(o.IO)
	if !p.CanPrompt() {
		return cmdutil.UsageError("upgrading tenant cluster %q needs confirmation: pass --yes (there is no terminal to ask on)", c.Name)
	}
	if o.Print.Human() {
		if err := writePlan(o.IO.ErrOut, pl); err != nil {
			return err
		}
	}
	return p.Confirm(fmt.Sprintf("Upgrade tenant cluster %s/%s from %s to %s? It cannot be undone.", c.Namespace, c.Name, pl.From, pl.To),
		"upgrade cancelled: nothing was changed")
}
