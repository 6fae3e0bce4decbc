// Package extend is `butlerctl cluster extend`: move a throwaway cluster's expiry (the
// annotation butler.butlerlabs.dev/expires-at) to now plus --ttl.
package extend

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec: the structured formats print the TenantCluster as written, -o name its
// kind.group/name.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what cluster extend reads and writes: the team, who asks, the cluster and what
// its update rules read (store.Reader), and the server the annotation is patched on.
type Store interface {
	store.Reader
	store.Served
}

var _ Store = store.Store(nil)

// MaxTTL bounds --ttl: an expiry is what makes a cluster throwaway, and one years away
// would make it a standing cluster that looks throwaway (extending again is always
// possible, each time by someone allowed to).
const MaxTTL = 30 * 24 * time.Hour

// Options are what cluster extend runs with.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies (the clock too), from Complete.
	shared.ClusterOptions[Store]

	TTL time.Duration
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "extend NAME --team TEAM --ttl DURATION",
		Short: "Move a cluster's expiry to now plus --ttl",
		Long: `Move a throwaway cluster's expiry (the annotation butler.butlerlabs.dev/expires-at,
written by cluster create --ttl) to now plus --ttl, so butleradm cluster reap leaves it
alone until then. An expiry is never moved earlier: when the cluster already lives longer,
nothing is sent. A cluster without an expiry gets one. --ttl is at most 30 days (720h):
extend again later if the cluster is still needed then.

Extending needs operator or admin in the cluster's environment, and the change passes the
server's update rules first (exit 4 otherwise). Live only: the change is one patch of the
annotation carrying the resourceVersion that was read.`,
		Example: `  butlerctl cluster extend ci-x7k2p --team payments --ttl 4h`,
		Args:    cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	o.TeamFlag(cmd)
	cmd.Flags().DurationVar(&o.TTL, "ttl", 0, "Time to live from now (required, at most 720h), such as 2h")
	factory.AddDryRun(cmd, f)
	return cmd
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.TTL <= 0 {
		return cmdutil.UsageError("--ttl is required and must be positive, such as 2h")
	}
	if o.TTL > MaxTTL {
		return cmdutil.UsageError("--ttl %s is longer than %s (30 days): extend again later if the cluster is still needed then", o.TTL, MaxTTL)
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	cs, err := s.Server()
	if err != nil {
		return err
	}
	team, actor, err := lookup.TeamAndActor(ctx, s, o.Team)
	if err != nil {
		return err
	}
	c, err := lookup.Cluster(ctx, s, team, o.Name)
	if err != nil {
		return err
	}
	if _, err := lookup.RequireOperator(team, c, actor, "extend"); err != nil {
		return err
	}
	name := "tenantcluster.butler.butlerlabs.dev/" + c.Name
	want := o.Now().Add(o.TTL)
	if cur, ok, err := clusterttl.Expiry(c); err == nil && ok && !cur.Before(want.Truncate(time.Second)) {
		return o.Printer.Done(clusterview.WithTypeMeta(*c), fmt.Sprintf("%s unchanged: expires %s, after now plus %s", name, clusterttl.Format(cur), o.TTL), "")
	}
	if err := admitUpdate(ctx, s, team, c, want, actor.Identity.Username); err != nil {
		return err
	}
	got, err := cs.AnnotateCluster(ctx, c, clusterttl.Annotation, clusterttl.Format(want))
	if err != nil {
		return err
	}
	return o.Printer.Done(clusterview.WithTypeMeta(*got), fmt.Sprintf("%s extended: expires %s (in %s)", name, clusterttl.Format(want), o.TTL), "")
}

// admitUpdate runs the server's update rules on the cluster with its new expiry, so a
// refusal comes in the server's words before anything is sent.
func admitUpdate(ctx context.Context, s store.Reader, team *v1alpha1.Team, c *v1alpha1.TenantCluster, expiry time.Time, user string) error {
	siblings, err := s.ListClusters(ctx, c.Namespace)
	if err != nil {
		return err
	}
	var pc *v1alpha1.ProviderConfig
	if r := c.Spec.ProviderConfigRef; r != nil && r.Name != "" {
		ns := r.Namespace
		if ns == "" {
			ns = v1alpha1.DefaultProviderNamespace
		}
		if pc, err = s.GetProviderConfig(ctx, ns, r.Name); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	updated := c.DeepCopy()
	clusterttl.Set(updated, expiry)
	d := policy.AdmitCluster(policy.ClusterRequest{
		Operation: policy.Update, Cluster: updated, Old: c, Team: team, Siblings: siblings, Username: user, ProviderConfig: pc,
	})
	if !d.Allowed() {
		return cmdutil.DeniedError(d.Err())
	}
	return nil
}
