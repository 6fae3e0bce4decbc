package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is Steward's live API group (the document says .io; the code says .dev).
var GroupVersion = schema.GroupVersion{Group: "steward.butlerlabs.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers the types with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &TenantControlPlane{}, &TenantControlPlaneList{})
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})
	// AddToScheme adds the types of this group to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// VersionWriteLimited is the status shown while write permissions are limited.
const VersionWriteLimited = "WriteLimited"

// TenantControlPlane is a tenant's hosted control plane. Only the fields the toolkit uses
// are typed; the rest of the live object is kept by patching, never by replacing.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tcp,categories=steward
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.kubernetesResources.version.status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TenantControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +kubebuilder:pruning:PreserveUnknownFields
	Spec TenantControlPlaneSpec `json:"spec,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	Status TenantControlPlaneStatus `json:"status,omitempty"`
}

// TenantControlPlaneList is a list of TenantControlPlanes.
//
// +kubebuilder:object:root=true
type TenantControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TenantControlPlane `json:"items"`
}

// TenantControlPlaneSpec holds the write permissions.
type TenantControlPlaneSpec struct {
	// +optional
	WritePermissions Permissions `json:"writePermissions,omitempty"`
}

// Permissions block classes of writes to the tenant's API server. The JSON names are the
// live ones (blockCreation, blockDeletion), not the document's.
type Permissions struct {
	// +optional
	BlockCreate bool `json:"blockCreation,omitempty"`
	// +optional
	BlockUpdate bool `json:"blockUpdate,omitempty"`
	// +optional
	BlockDelete bool `json:"blockDeletion,omitempty"`
}

// HasAnyLimitation reports whether any write is blocked.
func (p Permissions) HasAnyLimitation() bool { return p.BlockCreate || p.BlockUpdate || p.BlockDelete }

// TenantControlPlaneStatus carries the version status.
type TenantControlPlaneStatus struct {
	// +optional
	KubernetesResources KubernetesResourcesStatus `json:"kubernetesResources,omitempty"`
}

// KubernetesResourcesStatus holds the version status.
type KubernetesResourcesStatus struct {
	// +optional
	Version KubernetesVersionStatus `json:"version,omitempty"`
}

// KubernetesVersionStatus is the control plane's version state.
type KubernetesVersionStatus struct {
	// +optional
	Version string `json:"version,omitempty"`
	// +kubebuilder:validation:Enum=Unknown;Provisioning;CertificateAuthorityRotating;Upgrading;Migrating;Ready;NotReady;Sleeping;WriteLimited
	// +optional
	Status string `json:"status,omitempty"`
}
