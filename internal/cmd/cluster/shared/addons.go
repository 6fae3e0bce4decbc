package shared

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// tenantAddons are the extra named addons, one TenantAddon each (docs/rules.md §1.2).
func tenantAddons(c *v1alpha1.TenantCluster, extras []addon) []v1alpha1.TenantAddon {
	var out []v1alpha1.TenantAddon
	for _, a := range extras {
		out = append(out, v1alpha1.TenantAddon{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantAddon},
			ObjectMeta: metav1.ObjectMeta{Name: c.Name + "-" + a.name, Namespace: c.Namespace},
			Spec: v1alpha1.TenantAddonSpec{
				ClusterRef: v1alpha1.LocalObjectReference{Name: c.Name},
				Addon:      a.name,
				Version:    a.version,
			},
		})
	}
	return out
}
