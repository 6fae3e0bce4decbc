package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Provider types.
const (
	ProviderHarvester = "harvester"
	ProviderNutanix   = "nutanix"
	ProviderProxmox   = "proxmox"
	ProviderAzure     = "azure"
	ProviderAWS       = "aws"
	ProviderGCP       = "gcp"
	// ProviderLocal runs clusters with kind on the management cluster's host; it is the
	// only provider without credentials.
	ProviderLocal = "local"
)

// ProviderTypes lists every provider type in the CRD's enum order.
var ProviderTypes = []string{ProviderHarvester, ProviderNutanix, ProviderProxmox, ProviderAzure, ProviderAWS, ProviderGCP, ProviderLocal}

// ProviderConfig registers an infrastructure provider with its credentials.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Scope",type=string,JSONPath=`.spec.scope.type`
// +kubebuilder:printcolumn:name="Ready",type=boolean,JSONPath=`.status.ready`
// +kubebuilder:printcolumn:name="Validated",type=boolean,JSONPath=`.status.validated`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec   `json:"spec,omitempty"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// ProviderConfigList is a list of ProviderConfigs.
//
// +kubebuilder:object:root=true
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// The CRD's rule on the spec, checked offline by ValidateCredentialsRef. It stands apart
// from the doc comment so that gofmt leaves its quotes alone.
// +kubebuilder:validation:XValidation:rule="self.provider == 'local' || (has(self.credentialsRef) && self.credentialsRef.name != '')",message="credentialsRef with a non-empty name is required for all providers except local"

// ProviderConfigSpec is the provider, its settings, scope, network and limits.
type ProviderConfigSpec struct {
	// +kubebuilder:validation:Enum=harvester;nutanix;proxmox;azure;aws;gcp;local
	Provider string `json:"provider"`
	// CredentialsRef names the provider's credentials Secret; every provider but local needs
	// one (the rule above). A local provider without one writes none (omitzero for
	// encoding/json; omitempty for this project's renderer, which omits empty structs too).
	// +optional
	CredentialsRef SecretReference `json:"credentialsRef,omitempty,omitzero"`
	// +optional
	Harvester *HarvesterConfig `json:"harvester,omitempty"`
	// +optional
	Nutanix *NutanixConfig `json:"nutanix,omitempty"`
	// +optional
	Proxmox *ProxmoxConfig `json:"proxmox,omitempty"`
	// +optional
	Azure *AzureConfig `json:"azure,omitempty"`
	// +optional
	AWS *AWSConfig `json:"aws,omitempty"`
	// +optional
	GCP *GCPConfig `json:"gcp,omitempty"`
	// +optional
	Local *LocalConfig `json:"local,omitempty"`
	// +optional
	Scope *ProviderScope `json:"scope,omitempty"`
	// +optional
	Network *ProviderNetwork `json:"network,omitempty"`
	// +optional
	Limits *ProviderLimits `json:"limits,omitempty"`
}

// HarvesterConfig configures Harvester HCI.
type HarvesterConfig struct {
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// +kubebuilder:default=default
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+/[a-z0-9-]+$`
	NetworkName string `json:"networkName"`
	// +optional
	ImageName string `json:"imageName,omitempty"`
	// +optional
	StorageClassName string `json:"storageClassName,omitempty"`
}

// NutanixConfig configures Nutanix AHV.
type NutanixConfig struct {
	// +kubebuilder:validation:Pattern=`^https?://`
	Endpoint string `json:"endpoint"`
	// +kubebuilder:default=9440
	// +optional
	Port *int32 `json:"port,omitempty"`
	// +kubebuilder:default=false
	// +optional
	Insecure    *bool  `json:"insecure,omitempty"`
	ClusterUUID string `json:"clusterUUID"`
	SubnetUUID  string `json:"subnetUUID"`
	// +optional
	ImageUUID string `json:"imageUUID,omitempty"`
	// +optional
	StorageContainerUUID string `json:"storageContainerUUID,omitempty"`
}

// ProxmoxConfig configures Proxmox VE.
type ProxmoxConfig struct {
	// +kubebuilder:validation:Pattern=`^https?://`
	Endpoint string `json:"endpoint"`
	// +kubebuilder:default=false
	// +optional
	Insecure *bool `json:"insecure,omitempty"`
	// +kubebuilder:validation:MinItems=1
	Nodes   []string `json:"nodes"`
	Storage string   `json:"storage"`
	// +optional
	TemplateID *int32 `json:"templateID,omitempty"`
	// +optional
	VMIDRange *VMIDRange `json:"vmidRange,omitempty"`
}

// VMIDRange bounds the VM ids Butler allocates.
type VMIDRange struct {
	// +kubebuilder:validation:Minimum=100
	Start int32 `json:"start"`
	// +kubebuilder:validation:Minimum=100
	End int32 `json:"end"`
}

// AzureConfig configures Azure.
type AzureConfig struct {
	SubscriptionID string `json:"subscriptionID"`
	ResourceGroup  string `json:"resourceGroup"`
	// +optional
	Location string `json:"location,omitempty"`
	// +optional
	VNetName string `json:"vnetName,omitempty"`
	// +optional
	SubnetName string `json:"subnetName,omitempty"`
	// +optional
	VMSize string `json:"vmSize,omitempty"`
	// +optional
	ImageURN string `json:"imageURN,omitempty"`
}

// AWSConfig configures AWS.
type AWSConfig struct {
	Region string `json:"region"`
	// +optional
	VPCID string `json:"vpcID,omitempty"`
	// +optional
	SubnetIDs []string `json:"subnetIDs,omitempty"`
	// +optional
	SecurityGroupIDs []string `json:"securityGroupIDs,omitempty"`
}

// GCPConfig configures Google Cloud.
type GCPConfig struct {
	ProjectID string `json:"projectID"`
	Region    string `json:"region"`
	// +optional
	Zone string `json:"zone,omitempty"`
	// +optional
	Network string `json:"network,omitempty"`
	// +optional
	Subnetwork string `json:"subnetwork,omitempty"`
	// +optional
	MachineType string `json:"machineType,omitempty"`
	// +optional
	Image string `json:"image,omitempty"`
	// +optional
	ImageFamily string `json:"imageFamily,omitempty"`
	// +optional
	ImageProject string `json:"imageProject,omitempty"`
	// +optional
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// +optional
	Tags []string `json:"tags,omitempty"`
}

// Scope types.
const (
	ScopePlatform = "platform"
	ScopeTeam     = "team"
)

// ProviderScope says who may use the provider.
type ProviderScope struct {
	// +kubebuilder:validation:Enum=platform;team
	// +kubebuilder:default=platform
	// +optional
	Type string `json:"type,omitempty"`
	// +optional
	TeamRef *LocalObjectReference `json:"teamRef,omitempty"`
}

// Network modes.
const (
	NetworkModeIPAM  = "ipam"
	NetworkModeCloud = "cloud"
)

// ProviderNetwork is the provider's addressing.
type ProviderNetwork struct {
	// +kubebuilder:validation:Enum=ipam;cloud
	// +kubebuilder:default=cloud
	// +optional
	Mode string `json:"mode,omitempty"`
	// +optional
	PoolRefs []PoolRef `json:"poolRefs,omitempty"`
	// +optional
	Subnet string `json:"subnet,omitempty"`
	// +optional
	Gateway string `json:"gateway,omitempty"`
	// +optional
	DNSServers []string `json:"dnsServers,omitempty"`
	// +optional
	TimeServers []string `json:"timeServers,omitempty"`
	// +optional
	LoadBalancer *LoadBalancerConfig `json:"loadBalancer,omitempty"`
	// +optional
	QuotaPerTenant *QuotaPerTenant `json:"quotaPerTenant,omitempty"`
}

// PoolRef names an IPAM pool.
type PoolRef struct {
	Name string `json:"name"`
	// +kubebuilder:default=0
	// +optional
	Priority *int32 `json:"priority,omitempty"`
}

// LoadBalancerConfig shapes load-balancer address allocation.
type LoadBalancerConfig struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=8
	// +optional
	DefaultPoolSize *int32 `json:"defaultPoolSize,omitempty"`
	// +kubebuilder:validation:Enum=static;elastic
	// +kubebuilder:default=static
	// +optional
	AllocationMode string `json:"allocationMode,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=2
	// +optional
	InitialPoolSize *int32 `json:"initialPoolSize,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=2
	// +optional
	GrowthIncrement *int32 `json:"growthIncrement,omitempty"`
}

// QuotaPerTenant bounds addresses per tenant.
type QuotaPerTenant struct {
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxNodeIPs *int32 `json:"maxNodeIPs,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxLoadBalancerIPs *int32 `json:"maxLoadBalancerIPs,omitempty"`
}

// ProviderLimits bound what one team may run on the provider.
type ProviderLimits struct {
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxClustersPerTeam *int32 `json:"maxClustersPerTeam,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxNodesPerTeam *int32 `json:"maxNodesPerTeam,omitempty"`
}

// ProviderConfigStatus is what the controller observed.
type ProviderConfigStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	Validated bool `json:"validated,omitempty"`
	// +optional
	LastValidationTime *metav1.Time `json:"lastValidationTime,omitempty"`
	// +optional
	ProviderVersion string `json:"providerVersion,omitempty"`
	// +optional
	Ready bool `json:"ready,omitempty"`
	// +optional
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`
	// +optional
	Capacity *ProviderCapacity `json:"capacity,omitempty"`
}

// ProviderCapacity is the provider's remaining room.
type ProviderCapacity struct {
	// +optional
	AvailableIPs *int32 `json:"availableIPs,omitempty"`
	// +optional
	EstimatedTenants *int32 `json:"estimatedTenants,omitempty"`
}

// ScopeType is spec.scope.type with the CRD default applied.
func (p *ProviderConfig) ScopeType() string {
	if p.Spec.Scope == nil || p.Spec.Scope.Type == "" {
		return ScopePlatform
	}
	return p.Spec.Scope.Type
}

// LocalConfig is the local provider (kind clusters on the management cluster's host).
type LocalConfig struct {
	// KindNodeImage is the kind node image; empty derives it from the cluster's
	// Kubernetes version.
	// +optional
	KindNodeImage string `json:"kindNodeImage,omitempty"`
}

// CredentialsRefRuleMessage is the message of the CRD's rule on spec.credentialsRef.
const CredentialsRefRuleMessage = "credentialsRef with a non-empty name is required for all providers except local"

// ValidateCredentialsRef is the CRD's CEL rule on the spec, evaluated in Go so that it is
// checked offline too: every provider but local names a credentials Secret. The error is
// the one the API server returns for a failed rule on an object.
func (s *ProviderConfigSpec) ValidateCredentialsRef(path *field.Path) *field.Error {
	if s.Provider == ProviderLocal || s.CredentialsRef.Name != "" {
		return nil
	}
	return field.Invalid(path, "object", CredentialsRefRuleMessage)
}
