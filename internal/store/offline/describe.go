package offline

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ListClusterAddons implements store.Describer: the TenantAddon documents of the namespace
// (or without one) that name the cluster.
func (s *Store) ListClusterAddons(_ context.Context, namespace, cluster string) ([]v1alpha1.TenantAddon, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []v1alpha1.TenantAddon
	for _, a := range s.set.TenantAddons() {
		if (a.Namespace == "" || a.Namespace == namespace) && a.Spec.ClusterRef.Name == cluster {
			c := a.DeepCopy()
			if c.Namespace == "" {
				c.Namespace = namespace
			}
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ListEvents implements store.Describer: manifests have no events.
func (s *Store) ListEvents(context.Context, string, string, string) ([]corev1.Event, error) {
	return nil, nil
}
