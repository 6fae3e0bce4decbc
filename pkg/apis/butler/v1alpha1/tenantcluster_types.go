package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TenantCluster is a Kubernetes cluster run for a team.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tc
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="K8s Version",type=string,JSONPath=`.spec.kubernetesVersion`
// +kubebuilder:printcolumn:name="Workers",type=string,JSONPath=`.status.observedState.workers.ready`
// +kubebuilder:printcolumn:name="Endpoint",type=string,JSONPath=`.status.controlPlaneEndpoint`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TenantCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantClusterSpec   `json:"spec,omitempty"`
	Status TenantClusterStatus `json:"status,omitempty"`
}

// TenantClusterList is a list of TenantClusters.
//
// +kubebuilder:object:root=true
type TenantClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TenantCluster `json:"items"`
}

// TenantClusterSpec is the desired shape of a tenant cluster.
type TenantClusterSpec struct {
	// +kubebuilder:validation:Pattern=`^v\d+\.\d+\.\d+$`
	KubernetesVersion string `json:"kubernetesVersion"`
	// +optional
	TeamRef *LocalObjectReference `json:"teamRef,omitempty"`
	// +optional
	ProviderConfigRef *ProviderReference `json:"providerConfigRef,omitempty"`
	// +optional
	ControlPlane *ControlPlaneSpec `json:"controlPlane,omitempty"`
	Workers      WorkersSpec       `json:"workers"`
	// +optional
	Networking *NetworkingSpec `json:"networking,omitempty"`
	// +optional
	InfrastructureOverride *InfrastructureOverride `json:"infrastructureOverride,omitempty"`
	// +optional
	TimeServers []string `json:"timeServers,omitempty"`
	// +optional
	Workspaces *WorkspacesSpec `json:"workspaces,omitempty"`
	// +optional
	Addons *AddonsSpec `json:"addons,omitempty"`
	// +optional
	ManagementPolicy *ManagementPolicy `json:"managementPolicy,omitempty"`
}

// ProviderReference names a ProviderConfig; the namespace defaults to butler-system.
type ProviderReference struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// ControlPlaneSpec shapes the hosted control plane.
type ControlPlaneSpec struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// +optional
	CertSANs []string `json:"certSANs,omitempty"`
	// +optional
	DataStoreRef *LocalObjectReference `json:"dataStoreRef,omitempty"`
	// +kubebuilder:default=true
	// +optional
	ExternalCloudProvider *bool `json:"externalCloudProvider,omitempty"`
	// +optional
	Resources *ControlPlaneResources `json:"resources,omitempty"`
	// +kubebuilder:validation:Enum=LoadBalancer;NodePort;ClusterIP
	// +optional
	ServiceType string `json:"serviceType,omitempty"`
}

// ControlPlaneResources sets requests and limits per control-plane component.
type ControlPlaneResources struct {
	// +optional
	APIServer *ComponentResources `json:"apiServer,omitempty"`
	// +optional
	ControllerManager *ComponentResources `json:"controllerManager,omitempty"`
	// +optional
	Scheduler *ComponentResources `json:"scheduler,omitempty"`
}

// ComponentResources are requests and limits of one component.
type ComponentResources struct {
	// +optional
	Requests *ResourceAmounts `json:"requests,omitempty"`
	// +optional
	Limits *ResourceAmounts `json:"limits,omitempty"`
}

// ResourceAmounts is a cpu and memory pair.
type ResourceAmounts struct {
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
}

// WorkersSpec shapes the worker pool.
type WorkersSpec struct {
	// +kubebuilder:validation:Minimum=1
	Replicas int32 `json:"replicas"`
	// +optional
	MachineTemplate MachineTemplate `json:"machineTemplate,omitempty"`
}

// MachineTemplate is the size and OS of each worker.
type MachineTemplate struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=4
	// +optional
	CPU int32 `json:"cpu,omitempty"`
	// +kubebuilder:default="16Gi"
	// +optional
	Memory resource.Quantity `json:"memory,omitempty"`
	// +kubebuilder:default="100Gi"
	// +optional
	DiskSize resource.Quantity `json:"diskSize,omitempty"`
	// +optional
	OS *OSSpec `json:"os,omitempty"`
}

// OSSpec is the worker operating system.
type OSSpec struct {
	// +kubebuilder:validation:Enum=rocky;flatcar;talos;kairos;bottlerocket
	// +kubebuilder:default=rocky
	// +optional
	Type string `json:"type,omitempty"`
	// +kubebuilder:default="9.5"
	// +optional
	Version string `json:"version,omitempty"`
	// +optional
	ImageRef string `json:"imageRef,omitempty"`
	// +optional
	SchematicID string `json:"schematicID,omitempty"`
	// +optional
	SSHAuthorizedKey string `json:"sshAuthorizedKey,omitempty"`
	// +optional
	Talos *TalosSpec `json:"talos,omitempty"`
}

// TalosSpec configures Talos workers.
type TalosSpec struct {
	// +kubebuilder:default="/dev/vda"
	// +optional
	InstallDisk string `json:"installDisk,omitempty"`
	// +optional
	InstallerImage string `json:"installerImage,omitempty"`
	// +kubebuilder:default="v1.9.3"
	// +optional
	Version string `json:"version,omitempty"`
}

// NetworkingSpec is the cluster network.
type NetworkingSpec struct {
	// +kubebuilder:default="10.244.0.0/16"
	// +optional
	PodCIDR string `json:"podCIDR,omitempty"`
	// +kubebuilder:default="10.96.0.0/12"
	// +optional
	ServiceCIDR string `json:"serviceCIDR,omitempty"`
	// +optional
	LoadBalancerPool *AddressRange `json:"loadBalancerPool,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	LBPoolSize *int32 `json:"lbPoolSize,omitempty"`
}

// AddressRange is an inclusive IP range.
type AddressRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// InfrastructureOverride overrides provider settings for one cluster.
type InfrastructureOverride struct {
	// +optional
	Harvester *HarvesterOverride `json:"harvester,omitempty"`
	// +optional
	Nutanix *NutanixOverride `json:"nutanix,omitempty"`
	// +optional
	Proxmox *ProxmoxOverride `json:"proxmox,omitempty"`
	// +optional
	GCP *GCPOverride `json:"gcp,omitempty"`
}

// HarvesterOverride overrides Harvester settings.
type HarvesterOverride struct {
	Namespace   string `json:"namespace,omitempty"`
	NetworkName string `json:"networkName,omitempty"`
	ImageName   string `json:"imageName,omitempty"`
}

// NutanixOverride overrides Nutanix settings.
type NutanixOverride struct {
	ClusterUUID          string `json:"clusterUUID,omitempty"`
	SubnetUUID           string `json:"subnetUUID,omitempty"`
	ImageUUID            string `json:"imageUUID,omitempty"`
	StorageContainerUUID string `json:"storageContainerUUID,omitempty"`
}

// ProxmoxOverride overrides Proxmox settings.
type ProxmoxOverride struct {
	Node    string `json:"node,omitempty"`
	Storage string `json:"storage,omitempty"`
	// The live CRD has no format here, so int (not int32) keeps the schema identical.
	// +optional
	TemplateID *int `json:"templateID,omitempty"`
}

// GCPOverride overrides GCP settings.
type GCPOverride struct {
	Zone        string `json:"zone,omitempty"`
	MachineType string `json:"machineType,omitempty"`
	Image       string `json:"image,omitempty"`
	ImageFamily string `json:"imageFamily,omitempty"`
	Subnetwork  string `json:"subnetwork,omitempty"`
}

// WorkspacesSpec configures developer workspaces in the cluster.
type WorkspacesSpec struct {
	// +kubebuilder:default=false
	Enabled bool `json:"enabled"`
	// +kubebuilder:default="720h"
	// +optional
	AutoDeleteAfter string `json:"autoDeleteAfter,omitempty"`
	// +kubebuilder:default="ghcr.io/butlerdotdev/workspace-base:latest"
	// +optional
	DefaultImage string `json:"defaultImage,omitempty"`
	// +kubebuilder:default=20
	// +optional
	MaxWorkspaces *int32 `json:"maxWorkspaces,omitempty"`
	// +optional
	ResourceQuota *WorkspaceQuota `json:"resourceQuota,omitempty"`
}

// WorkspaceQuota bounds workspace resources.
type WorkspaceQuota struct {
	// +kubebuilder:default="16"
	// +optional
	MaxCPU string `json:"maxCPU,omitempty"`
	// +kubebuilder:default="32Gi"
	// +optional
	MaxMemory string `json:"maxMemory,omitempty"`
	// +kubebuilder:default="500Gi"
	// +optional
	MaxStorage string `json:"maxStorage,omitempty"`
}

// AddonsSpec is the structured block of platform addons (not a list of names). Each addon
// has its own type because the live CRD gives each its own enum, defaults and required fields.
type AddonsSpec struct {
	// +optional
	CNI *CNIAddonSpec `json:"cni,omitempty"`
	// +optional
	LoadBalancer *LoadBalancerAddonSpec `json:"loadBalancer,omitempty"`
	// +optional
	Storage *StorageAddonSpec `json:"storage,omitempty"`
	// +optional
	CertManager *CertManagerAddonSpec `json:"certManager,omitempty"`
	// +optional
	Ingress *IngressAddonSpec `json:"ingress,omitempty"`
	// +optional
	GitOps *GitOpsAddonSpec `json:"gitops,omitempty"`
}

// CNIAddonSpec configures the CNI.
type CNIAddonSpec struct {
	// +kubebuilder:validation:Enum=cilium
	// +kubebuilder:default=cilium
	// +optional
	Provider string `json:"provider,omitempty"`
	Version  string `json:"version"`
	// Values are free-form Helm values.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *runtime.RawExtension `json:"values,omitempty"`
}

// LoadBalancerAddonSpec configures the load-balancer addon.
type LoadBalancerAddonSpec struct {
	// +kubebuilder:validation:Enum=metallb
	// +kubebuilder:default=metallb
	// +optional
	Provider string `json:"provider,omitempty"`
	Version  string `json:"version"`
	// Values are free-form Helm values.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *runtime.RawExtension `json:"values,omitempty"`
}

// StorageAddonSpec configures the storage addon.
type StorageAddonSpec struct {
	// +kubebuilder:validation:Enum=longhorn;linstor
	// +optional
	Provider string `json:"provider,omitempty"`
	Version  string `json:"version"`
	// Values are free-form Helm values.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *runtime.RawExtension `json:"values,omitempty"`
}

// CertManagerAddonSpec configures cert-manager.
type CertManagerAddonSpec struct {
	// +kubebuilder:default=true
	// +optional
	Enabled *bool  `json:"enabled,omitempty"`
	Version string `json:"version"`
	// Values are free-form Helm values.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *runtime.RawExtension `json:"values,omitempty"`
}

// IngressAddonSpec configures the ingress controller.
type IngressAddonSpec struct {
	// +kubebuilder:default=true
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
	// +kubebuilder:validation:Enum=traefik;nginx
	// +optional
	Provider string `json:"provider,omitempty"`
	// +optional
	Version string `json:"version,omitempty"`
	// Values are free-form Helm values.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *runtime.RawExtension `json:"values,omitempty"`
}

// GitOpsAddonSpec configures Flux or Argo CD.
type GitOpsAddonSpec struct {
	// +kubebuilder:validation:Enum=fluxcd;argocd
	// +optional
	Provider string `json:"provider,omitempty"`
	// +optional
	Version string `json:"version,omitempty"`
	// +optional
	Repository *GitRepository `json:"repository,omitempty"`
}

// GitRepository is where GitOps reads from.
type GitRepository struct {
	URL string `json:"url"`
	// +kubebuilder:default=main
	// +optional
	Branch string `json:"branch,omitempty"`
	// +optional
	Path string `json:"path,omitempty"`
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
}

// ManagementPolicy says how Butler manages the cluster.
type ManagementPolicy struct {
	// +kubebuilder:validation:Enum=Active;Observe;GitOps
	// +kubebuilder:default=Active
	// +optional
	Mode string `json:"mode,omitempty"`
}

// TenantClusterStatus is what the controller observed.
type TenantClusterStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +kubebuilder:validation:Enum=Pending;Provisioning;Installing;Ready;Updating;Deleting;Failed
	// +optional
	Phase string `json:"phase,omitempty"`
	// +optional
	TenantNamespace string `json:"tenantNamespace,omitempty"`
	// +optional
	ControlPlaneEndpoint string `json:"controlPlaneEndpoint,omitempty"`
	// +optional
	KubeconfigSecretRef *LocalObjectReference `json:"kubeconfigSecretRef,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	// +optional
	ObservedState *ObservedState `json:"observedState,omitempty"`
	// +optional
	WorkerNodesReady int32 `json:"workerNodesReady"`
	// +optional
	WorkerNodesDesired int32 `json:"workerNodesDesired"`
	// +optional
	IPAllocationRef *LocalObjectReference `json:"ipAllocationRef,omitempty"`
	// +optional
	LBAllocationRef *LocalObjectReference `json:"lbAllocationRef,omitempty"`
	// +optional
	ImageSyncRef *LocalObjectReference `json:"imageSyncRef,omitempty"`
}

// ObservedState is what runs in the tenant cluster.
type ObservedState struct {
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// +optional
	Workers *ObservedWorkers `json:"workers,omitempty"`
	// +optional
	Addons []ObservedAddon `json:"addons,omitempty"`
}

// ObservedWorkers counts worker nodes.
type ObservedWorkers struct {
	Desired int32 `json:"desired"`
	Ready   int32 `json:"ready"`
	// +optional
	Nodes []string `json:"nodes,omitempty"`
}

// ObservedAddon is one addon as installed.
type ObservedAddon struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// +kubebuilder:validation:Enum=Pending;Installing;Healthy;Degraded;Failed
	Status string `json:"status"`
	// +kubebuilder:validation:Enum=butler;flux;argocd;manual
	ManagedBy string `json:"managedBy"`
}

// TeamName is spec.teamRef.name, or "" when the cluster names no team.
func (c *TenantCluster) TeamName() string {
	if c.Spec.TeamRef == nil {
		return ""
	}
	return c.Spec.TeamRef.Name
}

// Environment is the environment label, or "".
func (c *TenantCluster) Environment() string { return c.Labels[LabelEnvironment] }

// TenantAddon is an addon installed into a TenantCluster: a catalog addon by name
// (spec.addon), or a custom Helm chart (spec.helm).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ta
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.clusterRef.name`,description="Target cluster"
// +kubebuilder:printcolumn:name="Addon",type=string,JSONPath=`.spec.addon`,description="Addon name"
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.spec.version`,description="Desired version"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Current phase"
// +kubebuilder:printcolumn:name="Installed",type=string,JSONPath=`.status.installedVersion`,description="Installed version"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TenantAddon struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TenantAddonSpec `json:"spec,omitempty"`
	// +optional
	Status TenantAddonStatus `json:"status,omitempty"`
}

// TenantAddonList is a list of TenantAddons.
//
// +kubebuilder:object:root=true
type TenantAddonList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TenantAddon `json:"items"`
}

// TenantAddonSpec names the cluster, the addon or Helm chart, its version, values and the
// addons it waits for.
type TenantAddonSpec struct {
	ClusterRef LocalObjectReference `json:"clusterRef"`
	// Addon is a catalog addon's name; empty for a custom Helm chart.
	// +optional
	Addon string `json:"addon,omitempty"`
	// Version is the addon's or chart's version.
	Version string `json:"version"`
	// Helm installs a chart from a repository instead of a catalog addon.
	// +optional
	Helm *TenantAddonHelm `json:"helm,omitempty"`
	// Values are the chart's values, free-form.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	Values *runtime.RawExtension `json:"values,omitempty"`
	// DependsOn names TenantAddons of the same cluster to install first.
	// +optional
	DependsOn []LocalObjectReference `json:"dependsOn,omitempty"`
}

// TenantAddonHelm is a custom Helm chart.
type TenantAddonHelm struct {
	// Repository is the chart repository's URL (https:// or oci://).
	Repository string `json:"repository"`
	// Chart is the chart's name in the repository.
	Chart string `json:"chart"`
	// ReleaseName defaults to the TenantAddon's name.
	// +optional
	ReleaseName string `json:"releaseName,omitempty"`
	// Namespace is where the release is installed.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// CreateNamespace creates Namespace when missing.
	// +kubebuilder:default=true
	// +optional
	CreateNamespace *bool `json:"createNamespace,omitempty"`
}

// TenantAddonStatus is what the controller observed.
type TenantAddonStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// Phase is where the installation stands.
	// +kubebuilder:validation:Enum=Pending;Installing;Installed;Upgrading;Degraded;Failed;Deleting
	// +optional
	Phase string `json:"phase,omitempty"`
	// +optional
	InstalledVersion string `json:"installedVersion,omitempty"`
	// +optional
	HelmRelease *HelmReleaseStatus `json:"helmRelease,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// HelmReleaseStatus is the Helm release an addon installed.
type HelmReleaseStatus struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +optional
	Revision int `json:"revision,omitempty"`
	// +optional
	Status string `json:"status,omitempty"`
	// +optional
	Version string `json:"version,omitempty"`
}
