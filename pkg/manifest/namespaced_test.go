package manifest

import "testing"

// TestNamespaced: the scope of the kinds the tools read is their CRDs'.
func TestNamespaced(t *testing.T) {
	for kind, want := range map[string]bool{"TenantCluster": true, "ProviderConfig": true, "Team": false, "ClusterCreationPolicy": false, "User": false} {
		if got, known := Namespaced("butler.butlerlabs.dev/v1alpha1", kind); !known || got != want {
			t.Errorf("%s: namespaced %v (known %v), want %v", kind, got, known, want)
		}
	}
	if _, known := Namespaced("v1", "ConfigMap"); known {
		t.Error("ConfigMap: known, want unknown")
	}
}
