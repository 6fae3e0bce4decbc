package live

import (
	"context"

	"github.com/butlerdotdev/butler-toolkit/internal/apipager"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// PageClusters implements store.ClusterPager: PageSize clusters per request, the selector
// sent as labelSelector. The server returns them in key order, which is namespace/name.
func (s *Store) PageClusters(ctx context.Context, namespace, selector string, fn func([]v1alpha1.TenantCluster, bool) error) error {
	r := apipager.Request{PageSize: PageSize, Namespace: namespace, Resource: "tenantclusters", LabelSelector: selector}
	err := apipager.Pages(ctx, s.butler.Interface, s.butler.Params, r,
		func(l *v1alpha1.TenantClusterList) []v1alpha1.TenantCluster { return l.Items },
		func(page []v1alpha1.TenantCluster, restart bool) error {
			for i := range page {
				clean(&page[i].TypeMeta, &page[i].ObjectMeta, v1alpha1.KindTenantCluster)
			}
			return fn(page, restart)
		})
	return apiError(err)
}
