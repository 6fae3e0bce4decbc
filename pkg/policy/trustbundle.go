package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// The condition Butler sets (proposed) on a TenantCluster whose Nutanix provider would
// trust Prism's certificate without the CA to check it against.
const (
	ConditionNutanixTrustBundle = "NutanixCredentialsTrustBundle"
	ReasonMissingTrustBundle    = "MissingTrustBundle"
	// TrustBundleKey is the credentials Secret's key holding the Prism CA chain (PEM).
	TrustBundleKey = "ca.pem"
)

// NutanixTrustBundleWarning is the warning for a Nutanix ProviderConfig that talks https
// with insecure false while its credentials Secret (secretKeys: its key names) has no
// ca.pem: Butler then reports the cluster condition NutanixCredentialsTrustBundle with
// reason MissingTrustBundle. "" when that does not apply.
func NutanixTrustBundleWarning(pc *v1alpha1.ProviderConfig, secretNamespace, secretName string, secretKeys []string) string {
	n := pc.Spec.Nutanix
	if pc.Spec.Provider != v1alpha1.ProviderNutanix || n == nil || !strings.HasPrefix(n.Endpoint, "https://") ||
		(n.Insecure != nil && *n.Insecure) || slices.Contains(secretKeys, TrustBundleKey) {
		return ""
	}
	return fmt.Sprintf("ProviderConfig %q reaches Prism over https with insecure false, but its credentials Secret %s/%s has no %s: add the Prism CA chain there as %s, or Butler reports %s (reason %s) on its clusters",
		pc.Name, secretNamespace, secretName, TrustBundleKey, TrustBundleKey, ConditionNutanixTrustBundle, ReasonMissingTrustBundle)
}
