package store

import (
	"context"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Describer is what butlerctl cluster describe and cluster events read beyond a Store.
// Both stores implement it; kept out of Store so that test fakes need not.
type Describer interface {
	// ListClusterAddons lists the TenantAddons of namespace whose spec.clusterRef names
	// cluster, sorted by name.
	ListClusterAddons(ctx context.Context, namespace, cluster string) ([]v1alpha1.TenantAddon, error)
	// ListEvents lists the core/v1 Events of namespace about the object of that kind and
	// name, oldest first (by last, else first, else creation time). At most MaxEvents are
	// read. Offline there are none.
	ListEvents(ctx context.Context, namespace, kind, name string) ([]corev1.Event, error)
}

// MaxEvents bounds one read of Events (a noisy object can have thousands).
const MaxEvents = 500

// SortEvents orders events oldest first, by the time each last happened.
func SortEvents(evs []corev1.Event) {
	sort.SliceStable(evs, func(i, j int) bool { return EventTime(&evs[i]).Before(EventTime(&evs[j])) })
}

// EventTime is when an event last happened: lastTimestamp, else eventTime, else
// firstTimestamp, else its creation.
func EventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}
