package reap

import (
	"context"
	"errors"

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
		if o.DryRun {
			sum.Deleted = append(sum.Deleted, entry)
			continue
		}
		// Read again just before acting: a listing of many clusters is minutes old, and
		// the owner may have extended (or kept) this one since.
		cur, err := s.GetCluster(ctx, c.Namespace, c.Name)
		if err == nil {
			if exp, ok, _ := clusterttl.Expiry(cur); !ok || exp.After(now) {
				sum.NotExpired++
				continue
			}
			c = cur
		}
		thawed := false
		if err == nil {
			thawed, err = thaw(ctx, s, c)
		}
		if thawed {
			sum.Thawed++
		}
		if err == nil {
			_, err = s.DeleteCluster(ctx, c)
		}
		switch {
		case err == nil:
			sum.Deleted = append(sum.Deleted, entry)
		case apierrors.IsNotFound(err):
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

// thaw lifts the write limits of a frozen cluster's control plane. A cluster without a
// control plane (none yet, or Steward not installed) has none to lift.
func thaw(ctx context.Context, s store.ControlPlanes, c *v1alpha1.TenantCluster) (bool, error) {
	tcp, err := controlplane.Get(ctx, s, c)
	if err != nil {
		if apierrors.IsNotFound(err) || errors.Is(err, store.ErrNoControlPlaneAPI) {
			return false, nil
		}
		return false, err
	}
	if tcp.Spec.WritePermissions == (stewardv1alpha1.Permissions{}) {
		return false, nil
	}
	ref, _ := controlplane.RefOf(c)
	if _, _, err := s.SetWritePermissions(ctx, ref.Namespace, ref.Name, stewardv1alpha1.Permissions{}); err != nil {
		return false, err
	}
	return true, nil
}
