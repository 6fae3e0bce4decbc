package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TeamRole is a member's role in a team or environment.
// +kubebuilder:validation:Enum=admin;operator;viewer
type TeamRole string

// Team roles, highest first.
const (
	RoleAdmin    TeamRole = "admin"
	RoleOperator TeamRole = "operator"
	RoleViewer   TeamRole = "viewer"
)

// Team is the multi-tenancy boundary: members, quotas, defaults and environments.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=tm
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Namespace",type=string,JSONPath=`.status.namespace`
// +kubebuilder:printcolumn:name="Clusters",type=integer,JSONPath=`.status.clusterCount`
// +kubebuilder:printcolumn:name="Quota",type=string,JSONPath=`.status.quotaStatus`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Team struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TeamSpec   `json:"spec,omitempty"`
	Status TeamStatus `json:"status,omitempty"`
}

// TeamList is a list of Teams.
//
// +kubebuilder:object:root=true
type TeamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Team `json:"items"`
}

// TeamSpec is the desired state of a Team.
type TeamSpec struct {
	DisplayName string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
	// +optional
	Access TeamAccess `json:"access,omitempty"`
	// +optional
	ResourceLimits *TeamResourceLimits `json:"resourceLimits,omitempty"`
	// +optional
	ProviderConfigRef *LocalObjectReference `json:"providerConfigRef,omitempty"`
	// +optional
	ClusterDefaults *ClusterDefaults `json:"clusterDefaults,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=name
	Environments []EnvironmentSpec `json:"environments,omitempty"`
}

// TeamAccess lists the users and groups of a team (or an environment's elevations).
type TeamAccess struct {
	// +optional
	Users []TeamUser `json:"users,omitempty"`
	// +optional
	Groups []TeamGroup `json:"groups,omitempty"`
}

// TeamUser grants a role to one e-mail.
type TeamUser struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +kubebuilder:default=viewer
	// +optional
	Role TeamRole `json:"role,omitempty"`
}

// TeamGroup grants a role to every member of an identity-provider group.
type TeamGroup struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +kubebuilder:default=viewer
	// +optional
	Role TeamRole `json:"role,omitempty"`
	// +optional
	IdentityProvider string `json:"identityProvider,omitempty"`
}

// TeamResourceLimits caps what a team may consume. Unset fields are not enforced.
type TeamResourceLimits struct {
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxClusters *int32 `json:"maxClusters,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxNodesPerCluster *int32 `json:"maxNodesPerCluster,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxTotalNodes *int32 `json:"maxTotalNodes,omitempty"`
	// +optional
	MaxCPUCores *resource.Quantity `json:"maxCPUCores,omitempty"`
	// +optional
	MaxMemory *resource.Quantity `json:"maxMemory,omitempty"`
	// +optional
	MaxStorage *resource.Quantity `json:"maxStorage,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=3
	// +optional
	DefaultNodeCount *int32 `json:"defaultNodeCount,omitempty"`
	// +optional
	DefaultCPUPerNode *resource.Quantity `json:"defaultCPUPerNode,omitempty"`
	// +optional
	DefaultMemoryPerNode *resource.Quantity `json:"defaultMemoryPerNode,omitempty"`
	// +optional
	AllowedKubernetesVersions []string `json:"allowedKubernetesVersions,omitempty"`
	// +optional
	AllowedProviders []string `json:"allowedProviders,omitempty"`
	// +optional
	AllowedAddons []string `json:"allowedAddons,omitempty"`
	// +optional
	DeniedAddons []string `json:"deniedAddons,omitempty"`
}

// ClusterDefaults are applied to new TenantClusters that do not set the field.
type ClusterDefaults struct {
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	WorkerCount *int32 `json:"workerCount,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	WorkerCPU *int32 `json:"workerCPU,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	WorkerMemoryGi *int32 `json:"workerMemoryGi,omitempty"`
	// +kubebuilder:validation:Minimum=10
	// +optional
	WorkerDiskGi *int32 `json:"workerDiskGi,omitempty"`
	// +optional
	DefaultAddons []string `json:"defaultAddons,omitempty"`
}

// EnvironmentSpec is one named slot of a team: quotas, access elevations and defaults.
type EnvironmentSpec struct {
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	Name string `json:"name"`
	// +optional
	Description string `json:"description,omitempty"`
	// +optional
	Limits *EnvironmentLimits `json:"limits,omitempty"`
	// +optional
	Access *TeamAccess `json:"access,omitempty"`
	// +optional
	ClusterDefaults *ClusterDefaults `json:"clusterDefaults,omitempty"`
}

// EnvironmentLimits are per-environment caps; 0 or unset means no cap.
type EnvironmentLimits struct {
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxClusters *int32 `json:"maxClusters,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxClustersPerMember *int32 `json:"maxClustersPerMember,omitempty"`
}

// TeamStatus is what the controller observed.
type TeamStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +kubebuilder:validation:Enum=Pending;Ready;Terminating;Failed
	// +optional
	Phase string `json:"phase,omitempty"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	ClusterCount int32 `json:"clusterCount,omitempty"`
	// +optional
	MemberCount int32 `json:"memberCount,omitempty"`
	// +optional
	ResourceUsage *TeamResourceUsage `json:"resourceUsage,omitempty"`
	// +kubebuilder:validation:Enum=OK;Warning;Exceeded
	// +optional
	QuotaStatus string `json:"quotaStatus,omitempty"`
	// +optional
	QuotaMessage string `json:"quotaMessage,omitempty"`
}

// TeamResourceUsage is the team's consumption as last computed by the controller.
type TeamResourceUsage struct {
	// +optional
	Clusters int32 `json:"clusters,omitempty"`
	// +optional
	TotalNodes int32 `json:"totalNodes,omitempty"`
	// +optional
	TotalCPU *resource.Quantity `json:"totalCPU,omitempty"`
	// +optional
	TotalMemory *resource.Quantity `json:"totalMemory,omitempty"`
	// +optional
	TotalStorage *resource.Quantity `json:"totalStorage,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ClusterUtilization *int32 `json:"clusterUtilization,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	NodeUtilization *int32 `json:"nodeUtilization,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUUtilization *int32 `json:"cpuUtilization,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MemoryUtilization *int32 `json:"memoryUtilization,omitempty"`
}

// TeamNamespace is where the team's objects live: status.namespace, else the team's own name
// (the live controller uses the bare name, docs/rules.md §1.1).
func (t *Team) TeamNamespace() string {
	if t.Status.Namespace != "" {
		return t.Status.Namespace
	}
	return t.Name
}

// Environment returns the environment with that exact name, or nil.
func (t *Team) Environment(name string) *EnvironmentSpec {
	for i := range t.Spec.Environments {
		if t.Spec.Environments[i].Name == name {
			return &t.Spec.Environments[i]
		}
	}
	return nil
}
