package live

import (
	"context"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ListAddons implements store.Addons.
func (s *Store) ListAddons(ctx context.Context, namespace string) ([]v1alpha1.TenantAddon, error) {
	items, err := listAll(ctx, s, namespace, "tenantaddons", func(l *v1alpha1.TenantAddonList) []v1alpha1.TenantAddon { return l.Items })
	for i := range items {
		clean(&items[i].TypeMeta, &items[i].ObjectMeta, v1alpha1.KindTenantAddon)
	}
	sort.Slice(items, func(i, j int) bool { return less(&items[i].ObjectMeta, &items[j].ObjectMeta) })
	return items, err
}

// CreateAddon implements store.Addons.
func (s *Store) CreateAddon(ctx context.Context, a *v1alpha1.TenantAddon) (store.Result, error) {
	if err := s.create(ctx, a.Namespace, "tenantaddons", a); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: s.Host()}, nil
}

// DeleteAddon implements store.Addons, with a's uid as precondition.
func (s *Store) DeleteAddon(ctx context.Context, a *v1alpha1.TenantAddon) (store.Result, error) {
	opts := &metav1.DeleteOptions{}
	if a.UID != "" {
		uid := a.UID
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	err := s.butler.Delete().Namespace(a.Namespace).Resource("tenantaddons").Name(a.Name).Body(opts).Do(ctx).Error()
	if err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}
