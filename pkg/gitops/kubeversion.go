package gitops

import (
	"strconv"

	"helm.sh/helm/v3/pkg/chartutil"
)

// kubeMinor is the Kubernetes minor version of the k8s.io libraries the tools are built
// with (go.mod's k8s.io/apimachinery v0.35 is Kubernetes 1.35); a test holds the two
// together.
const kubeMinor = 35

// chartCapabilities are the capabilities a chart renders with: Helm's defaults, with the
// Kubernetes version set as Helm's own releases set it when they build `helm template`
// (v1.MINOR.0 of the Kubernetes libraries they are built with), rather than the library's
// placeholder, v1.20.0, which a chart requiring a supported Kubernetes refuses
// (kubeVersion: ">=1.23.0-0"). Argo CD passes the destination's version and Flux asks the
// cluster; without a cluster, the version the tools' own libraries speak stands in.
var chartCapabilities = func() *chartutil.Capabilities {
	caps := *chartutil.DefaultCapabilities
	m := strconv.Itoa(kubeMinor)
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1." + m + ".0", Major: "1", Minor: m}
	return &caps
}()
