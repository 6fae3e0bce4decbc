package live

import (
	"context"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ListClusterAddons implements store.Describer: the namespace's TenantAddons (paginated),
// kept when they name the cluster.
func (s *Store) ListClusterAddons(ctx context.Context, namespace, cluster string) ([]v1alpha1.TenantAddon, error) {
	items, err := listAll(ctx, s, namespace, "tenantaddons", func(l *v1alpha1.TenantAddonList) []v1alpha1.TenantAddon { return l.Items })
	if err != nil {
		return nil, apiError(err)
	}
	out := items[:0]
	for i := range items {
		if items[i].Spec.ClusterRef.Name == cluster {
			clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindTenantAddon)
			out = append(out, items[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ListEvents implements store.Describer with one list of core/v1 events narrowed by field
// selectors on the involved object, at most store.MaxEvents.
func (s *Store) ListEvents(ctx context.Context, namespace, kind, name string) ([]corev1.Event, error) {
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}.AsSelector().String()
	list := &corev1.EventList{}
	err := s.core.Get().Namespace(namespace).Resource("events").
		Param("fieldSelector", sel).Param("limit", strconv.Itoa(store.MaxEvents)).
		Do(ctx).Into(list)
	if err != nil {
		return nil, apiError(err)
	}
	store.SortEvents(list.Items)
	return list.Items, nil
}
