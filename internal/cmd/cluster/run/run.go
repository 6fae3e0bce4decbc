// Package run is `butlerctl cluster run`: a throwaway cluster for one command. The full
// admission preflight first, then create, wait until Ready, run the command with the
// cluster's kubeconfig, and clean up by --on-failure: always, also on an interrupt.
package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// What --on-failure does with the cluster of a failed (or interrupted) command.
const (
	OnFailureDelete = "delete"
	OnFailureKeep   = "keep"
	OnFailureFreeze = "freeze"
)

// Store is what cluster run reads and writes: the team, who asks, its clusters and what
// the rules read (store.Reader); the create and the delete; the control plane's write
// permissions (--on-failure freeze); the store's kind, and the server that dry-runs,
// watches, holds the kubeconfig and moves the expiry (--on-failure keep).
type Store interface {
	store.Reader
	CreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (store.Result, error)
	DeleteCluster(ctx context.Context, c *v1alpha1.TenantCluster) (store.Result, error)
	SetWritePermissions(ctx context.Context, namespace, name string, p stewardv1alpha1.Permissions) (*stewardv1alpha1.TenantControlPlane, store.Result, error)
	store.Kinded
	store.Served
}

var _ Store = store.Store(nil)

// Options are what cluster run runs with.
type Options struct {
	// Deps are the streams, the store and the clock (the expiry), from Complete; run
	// prints through COMMAND and stderr, not -o.
	factory.Deps[Store]
	Getenv  func(string) string
	Offline bool
	// Signals delivers the Interrupts; Complete wires it to the process's.
	Signals func() (<-chan os.Signal, func())

	Name string
	shared.CreateSpec
	OnFailure string
	KeepFor   time.Duration
	// keepForSet: --keep-for was given (it goes with --on-failure keep or freeze).
	keepForSet bool
	Timeout    time.Duration
	Command    []string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "run [NAME | --generate-name PREFIX] --team TEAM --environment ENV --ttl DURATION -- COMMAND [ARGS]",
		Short: "Create a throwaway cluster, run a command against it, clean up",
		Long: `Create a cluster for one command, as a CI job needs it: the full admission preflight
first (a refusal exits 4 with the server's message and creates nothing), then create, wait
until Ready (progress on stderr), write the cluster's admin kubeconfig to a private
temporary file, and run COMMAND with KUBECONFIG pointing at it and BUTLER_CLUSTER_NAME and
BUTLER_CLUSTER_NAMESPACE set. COMMAND's output passes through; the exit status is
COMMAND's.

Afterwards the cluster is deleted when COMMAND succeeded; when it failed, --on-failure
decides: delete (the default), keep (its expiry moves to now plus --keep-for), or freeze
(its control plane is made read-only, as butleradm cluster freeze does, and its expiry
moves to now plus --keep-for), so the failed state can be inspected and cannot change or
leak. An interrupt (SIGINT, SIGTERM: a cancelled CI job; SIGHUP: a closed terminal or a
dropped ssh session; SIGQUIT) is a failure: COMMAND gets the signal and the cluster is
cleaned up the same way; the same signal again stops the cleanup and leaves the cluster to
its TTL (butleradm cluster reap).`,
		Example: `  butlerctl cluster run --generate-name ci- --team payments --environment dev --ttl 1h -- make e2e
  butlerctl cluster run --generate-name pr- --team payments --environment dev --ttl 2h \
    --on-failure freeze --keep-for 4h -- ./hack/e2e.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.takeArgs(cmd, args); err != nil {
				return err
			}
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmdutil.Details(cmd, `Every such cluster carries labels naming the run, from --label and from the CI's
environment: GitHub Actions (GITHUB_RUN_ID, GITHUB_REPOSITORY, the pull request of
GITHUB_REF) and GitLab CI (CI_PIPELINE_ID, CI_PROJECT_PATH, CI_MERGE_REQUEST_IID), as
butler.butlerlabs.dev/ci-run, ci-repository and ci-pull-request. So a pipeline can delete
what a closed pull request left:
  butlerctl cluster delete --team payments -l butler.butlerlabs.dev/ci-pull-request=42 --yes

--on-failure freeze needs a team admin (as butleradm cluster freeze does), checked before
anything is created. Live only: on manifests the preflight runs and nothing else (exit
0 when it passes, 4 when it refuses; COMMAND is not run).`)
	fl := cmd.Flags()
	shared.AddCreateFlags(fl, &o.CreateSpec)
	fl.StringVar(&o.OnFailure, "on-failure", OnFailureDelete, "What to do with the cluster when COMMAND fails: delete, keep or freeze")
	_ = cmd.RegisterFlagCompletionFunc("on-failure", cobra.FixedCompletions([]cobra.Completion{OnFailureDelete, OnFailureKeep, OnFailureFreeze}, cobra.ShellCompDirectiveNoFileComp))
	fl.DurationVar(&o.KeepFor, "keep-for", 4*time.Hour, "With --on-failure keep or freeze: the kept cluster's expiry, from now")
	fl.DurationVar(&o.Timeout, "timeout", clusterwatch.DefaultTimeout, "How long to wait for the cluster to be Ready")
	factory.AddDryRun(cmd, f)
	return cmd
}

// takeArgs splits NAME from COMMAND at "--".
func (o *Options) takeArgs(cmd *cobra.Command, args []string) error {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		return cmdutil.UsageError("cluster run needs a COMMAND after --, for example: -- make e2e\nSee '%s --help'.", cmd.CommandPath())
	}
	before, after := args[:dash], args[dash:]
	if len(before) > 1 {
		return cmdutil.UsageError("unexpected argument %q before --: cluster run takes one NAME\nSee '%s --help'.", before[1], cmd.CommandPath())
	}
	if len(after) == 0 {
		return cmdutil.UsageError("cluster run needs a COMMAND after --\nSee '%s --help'.", cmd.CommandPath())
	}
	if len(before) == 1 {
		o.Name = before[0]
	}
	o.Command = after
	return nil
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Getenv = os.Getenv
	o.Offline = f.Offline()
	o.Signals = notify
	o.keepForSet = cmd.Flags().Changed("keep-for")
	if err := o.Parse(cmd.Flags(), o.Name); err != nil {
		return err
	}
	// A mistyped COMMAND is found before a cluster is created and waited for.
	if len(o.Command) > 0 {
		if _, err := exec.LookPath(o.Command[0]); err != nil {
			return cmdutil.UsageError("cannot run %s: %v", o.Command[0], err)
		}
	}
	for k, v := range ciLabels(o.Getenv) {
		o.AddLabel(k, v)
	}
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.TTL <= 0 {
		return cmdutil.UsageError("--ttl is required: it bounds how long a cluster a cancelled job leaves lives (such as 1h)")
	}
	switch o.OnFailure {
	case OnFailureDelete, OnFailureKeep, OnFailureFreeze:
	default:
		return cmdutil.UsageError("--on-failure: %q is not one of delete, keep, freeze", o.OnFailure)
	}
	if o.keepForSet && o.OnFailure == OnFailureDelete {
		return cmdutil.UsageError("--keep-for goes with --on-failure keep or freeze")
	}
	if o.KeepFor <= 0 || o.Timeout <= 0 {
		return cmdutil.UsageError("--keep-for and --timeout must be positive")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	p, err := preflight(ctx, o, s)
	if err != nil {
		return err
	}
	if o.DryRun.On() {
		// The preflight is the whole dry run (live, it ends with the server's own dry run
		// of the create); nothing is created and COMMAND is not run.
		o.errorf("preflight passed: TenantCluster %s/%s would be admitted; --dry-run: nothing was created and %s was not run", p.Cluster.Namespace, p.Cluster.Name, o.Command[0])
		return nil
	}
	if o.Offline || s.Kind() != store.Live {
		// On manifests the preflight is the whole run: a pass is a success, so CI can gate
		// a change on it (exit 0), and stderr says that nothing was created or run.
		o.errorf("preflight passed: TenantCluster %s/%s would be admitted; on manifests nothing was created and %s was not run (cluster run needs a live cluster for that)", p.Cluster.Namespace, p.Cluster.Name, o.Command[0])
		return nil
	}
	sig, stop := o.Signals()
	defer stop()
	r := &runner{o: o, s: s, plan: p, sig: sig, id: newRunID()}
	return r.do(ctx)
}

// errorf is a line on stderr.
func (o *Options) errorf(format string, a ...any) { fmt.Fprintf(o.IO.ErrOut, format+"\n", a...) }
