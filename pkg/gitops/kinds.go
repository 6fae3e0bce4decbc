package gitops

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// recognisedGroups are the API groups of what a GitOps repository holds besides Butler's
// objects: the platform's own kinds, Kustomize's configuration, Flux's and Argo CD's
// objects, sealed secrets. They are recognised and counted, not judged.
var recognisedGroups = map[string]bool{
	// Kubernetes
	"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true,
	"rbac.authorization.k8s.io": true, "networking.k8s.io": true, "storage.k8s.io": true,
	"apiextensions.k8s.io": true, "admissionregistration.k8s.io": true, "scheduling.k8s.io": true,
	"coordination.k8s.io": true, "discovery.k8s.io": true, "node.k8s.io": true,
	"certificates.k8s.io": true, "apiregistration.k8s.io": true, "flowcontrol.apiserver.k8s.io": true,
	"resource.k8s.io": true, "events.k8s.io": true,
	// Kustomize configuration
	"kustomize.config.k8s.io": true,
	// Flux: source, kustomize, helm, notification, image automation; the source extensions
	// (ArtifactGenerator, Flux 2.7) and the CLI's schema plugin configuration
	"source.toolkit.fluxcd.io": true, "kustomize.toolkit.fluxcd.io": true, "helm.toolkit.fluxcd.io": true,
	"notification.toolkit.fluxcd.io": true, "image.toolkit.fluxcd.io": true,
	"source.extensions.fluxcd.io": true, "schema.plugin.fluxcd.io": true,
	// Argo CD
	"argoproj.io": true,
	// Sealed Secrets
	"bitnami.com": true,
}

// Group of an object's apiVersion ("" for the core group).
func group(o *manifest.Object) string {
	gv, _ := schema.ParseGroupVersion(o.APIVersion)
	return gv.Group
}

// judged reports whether the check judges an object: Butler's and Steward's kinds.
func judged(o *manifest.Object) bool {
	g := group(o)
	return g == manifest.ButlerGroup || g == manifest.StewardGroup
}

// Recognised reports whether an object is of a kind the check knows and does not judge.
func Recognised(o *manifest.Object) bool { return recognisedGroups[group(o)] }

func isFluxKustomization(o *manifest.Object) bool {
	return group(o) == "kustomize.toolkit.fluxcd.io" && o.Kind == "Kustomization"
}

func isArgoApplication(o *manifest.Object) bool {
	return group(o) == "argoproj.io" && o.Kind == "Application"
}

func isHelmRelease(o *manifest.Object) bool {
	return group(o) == "helm.toolkit.fluxcd.io" && o.Kind == "HelmRelease"
}

// isSOPS reports a document SOPS encrypted (it carries SOPS's metadata).
func isSOPS(o *manifest.Object) bool {
	u, ok := o.Obj.(interface{ UnstructuredContent() map[string]any })
	if !ok {
		return false
	}
	_, enc := u.UnstructuredContent()["sops"]
	return enc
}
