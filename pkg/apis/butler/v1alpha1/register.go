package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of every Butler object.
var GroupVersion = schema.GroupVersion{Group: "butler.butlerlabs.dev", Version: "v1alpha1"}

// APIVersion is GroupVersion as written in manifests.
const APIVersion = "butler.butlerlabs.dev/v1alpha1"

// Kinds the toolkit knows.
const (
	KindTeam             = "Team"
	KindTenantCluster    = "TenantCluster"
	KindProviderConfig   = "ProviderConfig"
	KindUser             = "User"
	KindIdentityProvider = "IdentityProvider"
	KindTenantAddon      = "TenantAddon"
	// KindClusterCreationPolicy is the platform admins' curation of cluster options.
	KindClusterCreationPolicy = "ClusterCreationPolicy"
)

// Resource returns the GroupResource of a plural resource name in this group.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

var (
	// SchemeBuilder registers the types with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the types of this group to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&Team{}, &TeamList{},
		&TenantCluster{}, &TenantClusterList{},
		&ProviderConfig{}, &ProviderConfigList{},
		&User{}, &UserList{},
		&IdentityProvider{}, &IdentityProviderList{},
		&TenantAddon{}, &TenantAddonList{},
		&ClusterCreationPolicy{}, &ClusterCreationPolicyList{},
		&NetworkPool{}, &NetworkPoolList{},
		&IPAllocation{}, &IPAllocationList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
