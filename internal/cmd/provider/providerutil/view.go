package providerutil

import (
	"strconv"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Observed reports whether the controller wrote any status (manifests usually have none).
func Observed(pc *v1alpha1.ProviderConfig) bool {
	st := &pc.Status
	return st.Ready || st.Validated || len(st.Conditions) > 0 || st.LastValidationTime != nil ||
		st.LastProbeTime != nil || st.ProviderVersion != "" || st.Capacity != nil
}

// Ready is status.ready, "-" when there is no status.
func Ready(pc *v1alpha1.ProviderConfig) string {
	if !Observed(pc) {
		return "-"
	}
	return strconv.FormatBool(pc.Status.Ready)
}

// Validated is status.validated, "-" when there is no status.
func Validated(pc *v1alpha1.ProviderConfig) string {
	if !Observed(pc) {
		return "-"
	}
	return strconv.FormatBool(pc.Status.Validated)
}

// Age is the time since creation, "-" for an object never created (manifests).
func Age(pc *v1alpha1.ProviderConfig, now time.Time) string {
	if pc.CreationTimestamp.IsZero() {
		return "-"
	}
	return clusterview.HumanDuration(now.Sub(pc.CreationTimestamp.Time))
}

// NetworkMode is spec.network.mode with its default, cloud.
func NetworkMode(pc *v1alpha1.ProviderConfig) string {
	if pc.Spec.Network == nil || pc.Spec.Network.Mode == "" {
		return v1alpha1.NetworkModeCloud
	}
	return pc.Spec.Network.Mode
}
