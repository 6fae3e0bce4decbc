package store

import (
	"context"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ClusterPager is a store that lists TenantClusters a page at a time with a label selector
// the server applies, so a list of thousands shows its first rows early and only the
// matching clusters cross the wire. The live store implements it; cluster list asserts it
// and falls back to ListClusters (and its own selector) otherwise.
type ClusterPager interface {
	// PageClusters calls fn with each page of the TenantClusters of namespace ("" for all)
	// that match selector (labels.Selector syntax, "" for all), in namespace/name order.
	// restart true means the server's snapshot expired mid-list and the list began again:
	// the page is the whole list, and the pages before it are to be dropped.
	PageClusters(ctx context.Context, namespace, selector string, fn func(page []v1alpha1.TenantCluster, restart bool) error) error
}
