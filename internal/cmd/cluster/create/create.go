// Package create is `butlerctl cluster create`: render a TenantCluster with its defaults
// resolved, run the server's admission rules on it, then print, write or send it.
package create

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
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Spec is what cluster create prints: the objects it renders or creates (the TenantCluster,
// then its TenantAddons); an explanation or a refusal, which have no object, print their
// view (Explanation, clusterview.Violation) instead.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what cluster create reads and writes: the team, who asks, its clusters and what
// the rules read (store.Reader), the create (of store.Writer), the store's kind for
// messages, and the server for --dry-run=server and --wait.
type Store interface {
	store.Reader
	CreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (store.Result, error)
	// ClusterApplier: -f, which creates as apply does.
	store.ClusterApplier
	store.Kinded
	store.Served
}

var _ Store = store.Store(nil)

// Options are what cluster create runs with: its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the store, the clock (--ttl's expiry), the -o flags and the
	// printer they choose.
	factory.Deps[Store]
	// Offline is true on manifests; FromStdin when they come from stdin (--manifests -).
	Offline, FromStdin bool

	Name string
	shared.CreateSpec
	Write   bool
	Explain bool
	Wait    bool
	Timeout time.Duration
	// timeoutSet: --timeout was given (it goes with --wait only).
	timeoutSet bool
	// File is -f: the cluster from a file instead of NAME and the flags; Namespace is -n.
	File, Namespace string

	cmdLine string // as typed, for the hint after a refusal
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create [NAME | --generate-name PREFIX] --team TEAM [--environment ENV] | -f FILE",
		Short: "Create a tenant cluster, with defaults resolved and every quota checked first",
		Long: `Render a TenantCluster with the team's and environment's defaults resolved, check it
against every admission rule the server applies, then print it (--dry-run, and always on
manifests), write it into the manifests (--write), or create it. A refusal prints the
server's own message and exits 4; --explain shows every value's source and every check.`,
		Example: `  butlerctl cluster create web --team payments --environment prod --manifests examples/payments --as bob@example.com
  butlerctl cluster create web --team payments --environment dev --explain
  butlerctl cluster create web --team payments --environment dev --workers 3 --memory 8Gi -o json
  butlerctl cluster create web --team payments --environment prod --dry-run=server -o yaml
  butlerctl cluster create web --team payments --environment prod --wait --timeout 20m
  butlerctl cluster create --generate-name ci- --team payments --environment dev --ttl 2h
  butlerctl cluster create -f web.yaml`,
		Args: maxOneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			o.cmdLine = commandLine(cmd, args)
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmdutil.Details(cmd, `The checks: environment, per-member, provider and team quotas, team restrictions, and
the ClusterCreationPolicies (docs/rules.md). On a terminal a refusal adds, below the
server's message, the figures and the next step (help environment: BUTLER_HINTS).

Live, the cluster is created once the checks pass. --dry-run (or --dry-run=client) prints
it and sends nothing; --dry-run=server sends it with the server's dry run, so RBAC,
admission webhooks and the schema have their say too, and prints the object as the server
returned it: nothing is stored. --wait waits until the cluster's phase is Ready, showing
progress on stderr, for at most --timeout (15m); a timeout or a Failed phase is exit 1, and
the cluster stays.

--ttl D writes the cluster's expiry, now plus D, as the annotation
butler.butlerlabs.dev/expires-at (an RFC 3339 time): cluster list and describe show the
time left, butlerctl cluster extend moves it, and butleradm cluster reap deletes expired
clusters. --generate-name PREFIX names the cluster PREFIX and 5 random characters, chosen
before the checks so that they run on the name that is created.`)
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	shared.AddCreateFlags(fl, &o.CreateSpec)
	fl.BoolVar(&o.Write, "write", false, "With --manifests: add the cluster to the manifests")
	fl.BoolVar(&o.Explain, "explain", false, "Explain each value's source and each quota before and after")
	factory.AddDryRun(cmd, f)
	fl.BoolVar(&o.Wait, "wait", false, "Live: wait until the cluster's phase is Ready")
	fl.DurationVar(&o.Timeout, "timeout", clusterwatch.DefaultTimeout, "With --wait: how long to wait for Ready")
	fl.StringVarP(&o.File, "filename", "f", "", "Create the TenantCluster of this file (or - for stdin) instead of NAME and the flags, judged and sent as butlerctl apply -f does")
	return cmd
}

// maxOneArg takes NAME or nothing (--generate-name); Validate says which is missing.
func maxOneArg(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return cmdutil.UsageError("unexpected argument %q: cluster create takes one NAME\nSee '%s --help'.", args[1], cmd.CommandPath())
	}
	return nil
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, _ []string) error {
	o.Offline = f.Offline()
	o.FromStdin = o.Offline && len(f.Options.Manifests) > 0 && f.Options.Manifests[0] == "-"
	o.Namespace = f.Options.Namespace
	o.timeoutSet = cmd.Flags().Changed("timeout")
	if o.File != "" {
		// The file holds the cluster: no flag of it may be given (checked here, on the
		// command line); its checks are all made.
		return o.checkFile(cmd)
	}
	// Flags into typed values; bad values are usage errors (exit 2).
	return o.Parse(cmd.Flags(), o.Name)
}

// Validate checks the flags' combinations before anything is read (-f's were checked with
// the command line).
func (o *Options) Validate() error {
	if o.File != "" {
		return nil
	}
	if o.timeoutSet && !o.Wait {
		return cmdutil.UsageError("--timeout goes with --wait")
	}
	if o.Wait && o.Timeout <= 0 {
		return cmdutil.UsageError("--timeout must be positive, got %s", o.Timeout)
	}
	if o.Wait && o.DryRun != "none" {
		return cmdutil.UsageError("--wait waits for a created cluster: it does not go with --dry-run")
	}
	if o.Wait && (o.Explain || o.Write) {
		return cmdutil.UsageError("--wait waits for a created cluster: it does not go with --explain or --write")
	}
	return o.checkMode()
}

// plan is what the command worked out before acting.
type plan = shared.Plan

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	if o.File != "" {
		return fromFile(ctx, o, s)
	}
	p, err := shared.NewPlan(ctx, s, o.IO.ErrOut, o.Now(), o.Name, &o.CreateSpec)
	if err != nil {
		return err
	}
	team, actor := p.Team, p.Actor

	// Role first: without operator rights the server would refuse before any quota.
	if !p.Role.Role.CanOperate() {
		return o.hinted(cmdutil.DeniedError(fmt.Errorf("user %q may not create clusters in %s: role %s (%s); creating clusters needs operator or admin",
			actor.Identity.Username, shared.Where(team.Name, o.Environment), p.Role.Role, p.Role.Reason)), roleHint(team.Name, o.Environment))
	}
	if o.Explain {
		if err := explain(o, p); err != nil {
			return err
		}
	}
	if !p.Decision.Allowed() {
		return deny(o, p)
	}
	// After admission, as on the server (admission runs before storage): a name that
	// exists is the server's AlreadyExists (exit 1, as kubectl create), with or without
	// --write, never a rendering that looks fine.
	if shared.Exists(p.Siblings, p.Cluster.Name) {
		return apierrors.NewAlreadyExists(v1alpha1.Resource("tenantclusters"), p.Cluster.Name)
	}
	if o.Explain && !o.Write {
		return nil
	}
	if o.Write {
		res, err := s.CreateCluster(ctx, p.Cluster, p.Addons)
		if err != nil {
			return err
		}
		if o.Explain && o.Print.Structured() {
			return nil // the explanation was the one document on stdout
		}
		return o.Printer.Print(planDoc(p, "created", res.Location))
	}
	live := s.Kind() == store.Live // the store says, whatever the flags were
	if live && o.DryRun == "server" {
		return serverDryRun(ctx, o, s, p)
	}
	if live && o.DryRun == "none" {
		return createLive(ctx, o, s, p)
	}
	return o.Printer.Print(planDoc(p, "", ""))
}
