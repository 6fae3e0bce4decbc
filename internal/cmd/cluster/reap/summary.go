package reap

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// Summary is what a reap did, as -o json|yaml prints it.
type Summary struct {
	Checked    int       `json:"checked"`
	NotExpired int       `json:"notExpired"`
	NoExpiry   int       `json:"noExpiry"`
	Thawed     int       `json:"thawed"`
	Deleted    []Cluster `json:"deleted"`
	// Gone were expired but deleted by someone else meanwhile: they count as deleted.
	Gone    []Cluster `json:"alreadyGone"`
	Invalid []Cluster `json:"invalidExpiry,omitempty"`
	Refused []Cluster `json:"refused,omitempty"`
	Failed  []Cluster `json:"failed,omitempty"`
}

// Cluster is one cluster of the summary.
type Cluster struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Expired   string `json:"expiredAt,omitempty"`
	Error     string `json:"error,omitempty"`
}

func reap(ctx context.Context, o *Options, s Store, clusters []v1alpha1.TenantCluster) Summary {
	sum := Summary{Deleted: []Cluster{}, Gone: []Cluster{}}
	now := o.Now()
	cs, _ := s.Server() // none on manifests: no server dry run, no resourceVersion
	for i := range clusters {
		c := &clusters[i]
		sum.Checked++
		entry := Cluster{Namespace: c.Namespace, Name: c.Name}
		exp, ok, err := clusterttl.Expiry(c)
		switch {
		case err != nil:
			entry.Error = err.Error()
			sum.Invalid = append(sum.Invalid, entry)
			continue
		case !ok:
			sum.NoExpiry++
			continue
		case exp.After(now):
			sum.NotExpired++
			continue
		}
		entry.Expired = clusterttl.Format(exp)
		if o.DryRun.Client() {
			sum.Deleted = append(sum.Deleted, entry)
			continue
		}
		thawed, err := reapOne(ctx, s, cs, c, now)
		if thawed {
			sum.Thawed++
		}
		switch {
		case err == nil:
			sum.Deleted = append(sum.Deleted, entry)
		case errors.Is(err, errNotExpired):
			sum.NotExpired++
		case apierrors.IsNotFound(err) || errors.Is(err, errGone):
			sum.Gone = append(sum.Gone, entry)
		case apierrors.IsForbidden(err):
			entry.Error = err.Error()
			sum.Refused = append(sum.Refused, entry)
		default:
			entry.Error = err.Error()
			sum.Failed = append(sum.Failed, entry)
		}
	}
	return sum
}

var (
	// errNotExpired: the cluster was extended since the listing (or since a delete's read).
	errNotExpired = errors.New("not expired")
	// errGone: the cluster listed was deleted, and one of its name created again, which
	// is left alone.
	errGone = errors.New("gone")
)

// conflicts bounds the reads again after a delete refused because the cluster changed
// since it was read (a status written meanwhile).
const conflicts = 3

// reapOne deletes an expired cluster as it is now, and reports whether it thawed it. Read
// again just before acting (a listing of many clusters is minutes old, and the owner may
// have extended this one since); live, the delete is first tried as a server dry run, so
// one that RBAC or admission refuses leaves a frozen cluster frozen; then the thaw, and
// the delete carrying the uid and resourceVersion read. A cluster changed meanwhile is
// read and checked again; a delete that does not happen after the thaw freezes the
// control plane again.
func reapOne(ctx context.Context, s Store, cs store.Server, listed *v1alpha1.TenantCluster, now time.Time) (bool, error) {
	var frozen *stewardv1alpha1.Permissions // what the thaw lifted, until the delete is done
	refreeze := func(c *v1alpha1.TenantCluster, err error) (bool, error) {
		if frozen == nil {
			return false, err
		}
		ref, _ := controlplane.RefOf(c)
		if _, _, ferr := s.SetWritePermissions(ctx, ref.Namespace, ref.Name, *frozen); ferr != nil {
			return true, fmt.Errorf("%w; its control plane, thawed for the delete, could not be frozen again: %v", err, ferr)
		}
		return false, err
	}
	for attempt := 1; ; attempt++ {
		c, err := s.GetCluster(ctx, listed.Namespace, listed.Name)
		switch {
		case err != nil:
			return refreeze(listed, err)
		case listed.UID != "" && c.UID != listed.UID:
			return refreeze(listed, errGone)
		}
		if exp, ok, _ := clusterttl.Expiry(c); !ok || exp.After(now) {
			return refreeze(c, errNotExpired)
		}
		if frozen == nil {
			if cs != nil {
				if err := cs.DeleteClusterAsRead(ctx, c, true); err != nil {
					if apierrors.IsConflict(err) && attempt < conflicts {
						continue
					}
					return false, err
				}
			}
			if frozen, err = thaw(ctx, s, c); err != nil {
				return false, err
			}
		}
		if cs != nil {
			err = cs.DeleteClusterAsRead(ctx, c, false)
		} else {
			_, err = s.DeleteCluster(ctx, c)
		}
		switch {
		case err == nil || apierrors.IsNotFound(err):
			return frozen != nil, err
		case apierrors.IsConflict(err) && attempt < conflicts:
			continue
		}
		return refreeze(c, err)
	}
}

// thaw lifts the write limits of a frozen cluster's control plane and returns them, nil
// when there were none. A cluster without a control plane (none yet, or Steward not
// installed) has none to lift.
func thaw(ctx context.Context, s store.ControlPlanes, c *v1alpha1.TenantCluster) (*stewardv1alpha1.Permissions, error) {
	tcp, err := controlplane.Get(ctx, s, c)
	if err != nil {
		if apierrors.IsNotFound(err) || errors.Is(err, store.ErrNoControlPlaneAPI) {
			return nil, nil
		}
		return nil, err
	}
	was := tcp.Spec.WritePermissions
	if was == (stewardv1alpha1.Permissions{}) {
		return nil, nil
	}
	ref, _ := controlplane.RefOf(c)
	if _, _, err := s.SetWritePermissions(ctx, ref.Namespace, ref.Name, stewardv1alpha1.Permissions{}); err != nil {
		return nil, err
	}
	return &was, nil
}
