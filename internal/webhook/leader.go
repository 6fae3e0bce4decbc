package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Lease timings of the replicas' election. A leader decides only while its last renewal is
// younger than RenewDeadline; another replica takes the Lease only after seeing no renewal
// for LeaseDuration. So between the old leader's last decision and the new leader's first
// lie at least LeaseDuration - RenewDeadline (15 s), longer than the API server's call to
// the webhook (timeoutSeconds, 10 s in the bundle): every create the old leader admitted
// has been stored, or has failed, before the new leader lists the clusters (CatchUp) and
// decides.
const (
	DefaultLeaseDuration = 25 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// LeaderLabel marks the pod of the elected replica; the bundle's Service selects it, so
// the API server calls the leader only.
const LeaderLabel = "butler.butlerlabs.dev/webhook-leader"

// Election is one replica's part in choosing the one replica that decides TenantCluster
// reviews (a coordination.k8s.io Lease). The others keep their caches warm and refuse
// those reviews, failing closed, should one reach them.
type Election struct {
	Namespace, Name, Identity string
	// PodName, when set, is this replica's pod in Namespace: labelled LeaderLabel=true
	// while it leads (after catching up), unlabelled otherwise.
	PodName       string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Reader is caught up with the API server before this replica starts deciding.
	Reader *CachedReader
	Log    *slog.Logger

	le      atomic.Pointer[leaderelection.LeaderElector]
	leading atomic.Bool
}

// ErrNotLeader refuses a TenantCluster review on a replica that does not hold the Lease.
var ErrNotLeader = errors.New("this webhook replica is not the elected leader (retry: the Service sends reviews to the leader)")

func (e *Election) timings() (lease, renew, retry time.Duration) {
	lease, renew, retry = e.LeaseDuration, e.RenewDeadline, e.RetryPeriod
	if lease <= 0 {
		lease = DefaultLeaseDuration
	}
	if renew <= 0 {
		renew = DefaultRenewDeadline
	}
	if retry <= 0 {
		retry = DefaultRetryPeriod
	}
	return lease, renew, retry
}

// Leading reports whether this replica may decide now: it holds the Lease, has caught up,
// and renewed it less than RenewDeadline ago.
func (e *Election) Leading() bool {
	le := e.le.Load()
	if le == nil || !e.leading.Load() || !le.IsLeader() {
		return false
	}
	lease, renew, _ := e.timings()
	return le.Check(renew-lease) == nil
}

// Run takes part in the election until ctx ends, standing again after losing the Lease.
// On ctx's end a held Lease is released, so a drained leader's successor takes over at
// once.
func (e *Election) Run(ctx context.Context, cfg *rest.Config) error {
	if e.Log == nil {
		e.Log = slog.New(slog.DiscardHandler)
	}
	lease, renew, retry := e.timings()
	if lease-renew <= 0 || renew <= retry {
		return fmt.Errorf("leader election: want lease duration > renew deadline > retry period, got %s, %s, %s", lease, renew, retry)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = UserAgent()
	coord, err := coordinationv1.NewForConfig(cfg)
	if err != nil {
		return err
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return err
	}
	e.label(ctx, core, false) // a restarted process in the pod of a former leader
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: e.Namespace, Name: e.Name},
		Client:     coord,
		LockConfig: resourcelock.ResourceLockConfig{Identity: e.Identity},
	}
	for ctx.Err() == nil {
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   lease,
			RenewDeadline:   renew,
			RetryPeriod:     retry,
			ReleaseOnCancel: true,
			Name:            e.Name,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) {
					e.Log.Info("elected leader: catching up", "lease", e.Namespace+"/"+e.Name, "identity", e.Identity)
					if e.Reader != nil {
						if err := e.Reader.CatchUp(lctx); err != nil {
							e.Log.Error("catching up after election", "error", err)
							return
						}
					}
					e.leading.Store(true)
					e.label(lctx, core, true)
					e.Log.Info("leading: deciding reviews", "identity", e.Identity)
				},
				OnStoppedLeading: func() {
					e.leading.Store(false)
					e.Log.Warn("lost the lease: no longer deciding", "identity", e.Identity)
					lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
					defer cancel()
					e.label(lctx, core, false)
				},
				OnNewLeader: func(id string) {
					if id != e.Identity {
						e.Log.Info("following", "leader", id)
					}
				},
			},
		})
		if err != nil {
			return err
		}
		e.le.Store(le)
		le.Run(ctx)
		e.leading.Store(false)
	}
	return nil
}

// label sets or removes LeaderLabel on this replica's pod. A failure is logged: a leader
// left unlabelled gets no reviews (writes fail closed until it is), and a former leader
// left labelled refuses the reviews it gets (ErrNotLeader).
func (e *Election) label(ctx context.Context, core corev1client.CoreV1Interface, leading bool) {
	if e.PodName == "" {
		return
	}
	value := "null"
	if leading {
		value = `"true"`
	}
	patch := []byte(`{"metadata":{"labels":{"` + LeaderLabel + `":` + value + `}}}`)
	if _, err := core.Pods(e.Namespace).Patch(ctx, e.PodName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		e.Log.Error("labelling this replica's pod", "pod", e.PodName, "leader", leading, "error", err)
	}
}
