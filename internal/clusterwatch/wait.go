package clusterwatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// DefaultTimeout is how long cluster create --wait and cluster upgrade --wait wait by
// default.
const DefaultTimeout = 15 * time.Minute

// Phases of a TenantCluster that end a wait.
const (
	PhaseReady  = "Ready"
	PhaseFailed = "Failed"
)

// Goal is what Wait waits for.
type Goal struct {
	// What ends "waiting for TenantCluster ns/name to be …": "Ready".
	What string
	// Reached reports whether the cluster got there.
	Reached func(*v1alpha1.TenantCluster) bool
	// Left says, on a timeout, what is left behind.
	Left string
}

// ReadyGoal is the wait of cluster create --wait: phase Ready.
var ReadyGoal = Goal{
	What:    PhaseReady,
	Reached: func(c *v1alpha1.TenantCluster) bool { return c.Status.Phase == PhaseReady },
	Left:    "the cluster was created and is still there",
}

// One is how Wait reads and watches the one cluster it follows.
type One struct {
	Get   func(ctx context.Context, namespace, name string) (*v1alpha1.TenantCluster, error)
	Watch func(ctx context.Context, namespace, name, resourceVersion string) (watch.Interface, error)
}

// errOver ends Run once the wait is over; the outcome is kept beside it.
var errOver = errors.New("the wait is over")

// Wait follows a TenantCluster until goal is reached, for at most timeout, and returns it
// then. It is Run over the one cluster: read first, then watched from that
// resourceVersion, resumed where a watch stopped, polled when watches cannot be had.
// report sees every state of the cluster it learns of.
//
// It fails on a timeout, when the cluster reaches phase Failed, and when it is deleted or
// being deleted; the errors say which (exit 1). A refused read is the server's answer.
func Wait(ctx context.Context, one One, namespace, name string, timeout time.Duration, goal Goal, report func(*v1alpha1.TenantCluster)) (*v1alpha1.TenantCluster, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	what := fmt.Sprintf("TenantCluster %s/%s", namespace, name)
	var last *v1alpha1.TenantCluster
	var outcome error
	gone := func() error {
		outcome = fmt.Errorf("%s was deleted while waiting for it to be %s", what, goal.What)
		return errOver
	}
	src := Source{
		List: func(ctx context.Context) ([]v1alpha1.TenantCluster, error) {
			c, err := one.Get(ctx, namespace, name)
			if apierrors.IsNotFound(err) {
				return nil, gone()
			}
			if err != nil {
				return nil, err
			}
			return []v1alpha1.TenantCluster{*c}, nil
		},
		Watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			return one.Watch(ctx, namespace, name, rv)
		},
		ListFirst: true,
	}
	err := Run(ctx, src, func(c *v1alpha1.TenantCluster, deleted bool) error {
		if deleted {
			return gone()
		}
		last = c.DeepCopy()
		report(last)
		switch {
		case goal.Reached(c):
			return errOver
		case c.Status.Phase == PhaseFailed:
			outcome = fmt.Errorf("%s failed: phase Failed%s", what, readyReason(c))
			return errOver
		case c.DeletionTimestamp != nil:
			outcome = fmt.Errorf("%s is being deleted: it will not become %s", what, goal.What)
			return errOver
		}
		return nil
	})
	switch {
	case errors.Is(err, errOver):
		return last, outcome
	case err != nil:
		return last, err
	}
	phase := "no phase yet"
	if last != nil && last.Status.Phase != "" {
		phase = "phase " + last.Status.Phase
	}
	return last, fmt.Errorf("timed out after %s waiting for %s to be %s (%s); %s", timeout, what, goal.What, phase, goal.Left)
}

// readyReason is the Ready condition's reason and message, when the cluster has one.
func readyReason(c *v1alpha1.TenantCluster) string {
	cond := meta.FindStatusCondition(c.Status.Conditions, "Ready")
	if cond == nil || (cond.Reason == "" && cond.Message == "") {
		return ""
	}
	if cond.Message == "" {
		return fmt.Sprintf(" (%s)", cond.Reason)
	}
	if cond.Reason == "" {
		return fmt.Sprintf(" (%s)", cond.Message)
	}
	return fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
}
