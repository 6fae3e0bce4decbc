package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LabelNetworkPool names the NetworkPool an IPAllocation draws from; the NetworkPool
// webhook finds a pool's allocations by it.
const LabelNetworkPool = "butler.butlerlabs.dev/network-pool"

// Kinds of the address management objects.
const (
	KindNetworkPool  = "NetworkPool"
	KindIPAllocation = "IPAllocation"
)

// NetworkPool is a range of IPv4 addresses that tenant clusters draw from.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=np
// +kubebuilder:printcolumn:name="CIDR",type=string,JSONPath=`.spec.cidr`,description="Network CIDR"
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableIPs`,description="Available IPs"
// +kubebuilder:printcolumn:name="Allocated",type=integer,JSONPath=`.status.allocatedIPs`,description="Allocated IPs"
// +kubebuilder:printcolumn:name="Total",type=integer,JSONPath=`.status.totalIPs`,description="Total usable IPs"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NetworkPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NetworkPoolSpec `json:"spec,omitempty"`
	// +optional
	Status NetworkPoolStatus `json:"status,omitempty"`
}

// NetworkPoolList is a list of NetworkPools.
//
// +kubebuilder:object:root=true
type NetworkPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NetworkPool `json:"items"`
}

// NetworkPoolSpec is the pool's CIDR, the ranges kept out of it and the part tenants get.
type NetworkPoolSpec struct {
	// +kubebuilder:validation:Pattern=`^(\d{1,3}\.){3}\d{1,3}/\d{1,2}$`
	CIDR string `json:"cidr"`
	// +optional
	Reserved []ReservedRange `json:"reserved,omitempty"`
	// +optional
	TenantAllocation *TenantAllocationConfig `json:"tenantAllocation,omitempty"`
}

// ReservedRange is a CIDR inside the pool that is never allocated.
type ReservedRange struct {
	// +kubebuilder:validation:Pattern=`^(\d{1,3}\.){3}\d{1,3}/\d{1,2}$`
	CIDR string `json:"cidr"`
	// +optional
	Description string `json:"description,omitempty"`
}

// TenantAllocationConfig is the part of the pool tenants draw from: Ranges, or the
// deprecated Start and End (ignored when Ranges is set).
type TenantAllocationConfig struct {
	// Deprecated: use Ranges.
	// +optional
	Start string `json:"start,omitempty"`
	// Deprecated: use Ranges.
	// +optional
	End string `json:"end,omitempty"`
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Ranges []IPRange `json:"ranges,omitempty"`
	// +optional
	Defaults *TenantAllocationDefaults `json:"defaults,omitempty"`
}

// EffectiveRanges are the ranges the server uses: Ranges when set, else Start-End when
// both are set, else none (the whole CIDR).
func (t *TenantAllocationConfig) EffectiveRanges() []IPRange {
	if t == nil {
		return nil
	}
	if len(t.Ranges) > 0 {
		return t.Ranges
	}
	if t.Start != "" && t.End != "" {
		return []IPRange{{Start: t.Start, End: t.End}}
	}
	return nil
}

// IPRange is an inclusive range of IPv4 addresses.
type IPRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// TenantAllocationDefaults are the addresses a tenant gets when it asks for no count.
type TenantAllocationDefaults struct {
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +optional
	NodesPerTenant *int32 `json:"nodesPerTenant,omitempty"`
	// +kubebuilder:default=8
	// +kubebuilder:validation:Minimum=1
	// +optional
	LBPoolPerTenant *int32 `json:"lbPoolPerTenant,omitempty"`
}

// NetworkPoolStatus is what the controller counted.
type NetworkPoolStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// +optional
	TotalIPs int32 `json:"totalIPs,omitempty"`
	// +optional
	AllocatedIPs int32 `json:"allocatedIPs,omitempty"`
	// +optional
	AvailableIPs int32 `json:"availableIPs,omitempty"`
	// +optional
	ReservedIPs int32 `json:"reservedIPs,omitempty"`
	// +optional
	AllocationCount int32 `json:"allocationCount,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	FragmentationPercent int32 `json:"fragmentationPercent,omitempty"`
	// +optional
	LargestFreeBlock int32 `json:"largestFreeBlock,omitempty"`
	// +optional
	PoolSizeIPs int32 `json:"poolSizeIPs,omitempty"`
	// +optional
	InfrastructureConsumedIPs int32 `json:"infrastructureConsumedIPs,omitempty"`
	// +optional
	UnmanagedScopeIPs int32 `json:"unmanagedScopeIPs,omitempty"`
	// +optional
	UnmanagedRanges []IPRange `json:"unmanagedRanges,omitempty"`
	// +listType=map
	// +listMapKey=ip
	// +optional
	InfrastructureAllocations []InfrastructureAllocation `json:"infrastructureAllocations,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// InfrastructureAllocation is an address of the pool taken by infrastructure (a Service,
// a Node, a Machine) rather than by an IPAllocation.
type InfrastructureAllocation struct {
	// +kubebuilder:validation:Pattern=`^(\d{1,3}\.){3}\d{1,3}$`
	IP     string `json:"ip"`
	Source string `json:"source"`
	// +optional
	ServiceRef *NamespacedObjectReference `json:"serviceRef,omitempty"`
	// +optional
	NodeRef *LocalObjectReference `json:"nodeRef,omitempty"`
	// +optional
	MachineRef *NamespacedObjectReference `json:"machineRef,omitempty"`
}

// NamespacedObjectReference names an object in a namespace.
type NamespacedObjectReference struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +kubebuilder:validation:MinLength=1
	Namespace string `json:"namespace"`
}

// IPAllocation is a block of a NetworkPool's addresses given to a tenant cluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=ipa
// +kubebuilder:printcolumn:name="Pool",type=string,JSONPath=`.spec.poolRef.name`,description="Network pool"
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.tenantClusterRef.name`,description="Tenant cluster"
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`,description="Allocation type"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Allocation phase"
// +kubebuilder:printcolumn:name="Start",type=string,JSONPath=`.status.startAddress`,description="Start IP"
// +kubebuilder:printcolumn:name="End",type=string,JSONPath=`.status.endAddress`,description="End IP"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type IPAllocation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec IPAllocationSpec `json:"spec,omitempty"`
	// +optional
	Status IPAllocationStatus `json:"status,omitempty"`
}

// IPAllocationList is a list of IPAllocations.
//
// +kubebuilder:object:root=true
type IPAllocationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IPAllocation `json:"items"`
}

// IPAllocationType is what the addresses are for.
// +kubebuilder:validation:Enum=nodes;loadbalancer
type IPAllocationType string

// IPAllocationSpec is the pool, the cluster, what for, and how many or which addresses.
type IPAllocationSpec struct {
	PoolRef          LocalObjectReference      `json:"poolRef"`
	TenantClusterRef NamespacedObjectReference `json:"tenantClusterRef"`
	Type             IPAllocationType          `json:"type"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	Count *int32 `json:"count,omitempty"`
	// +optional
	PinnedRange *PinnedIPRange `json:"pinnedRange,omitempty"`
}

// PinnedIPRange asks for exactly these addresses.
type PinnedIPRange struct {
	// +kubebuilder:validation:Pattern=`^(\d{1,3}\.){3}\d{1,3}$`
	StartAddress string `json:"startAddress"`
	// +kubebuilder:validation:Pattern=`^(\d{1,3}\.){3}\d{1,3}$`
	EndAddress string `json:"endAddress"`
}

// IPAllocationPhase is where an allocation stands.
// +kubebuilder:validation:Enum=Pending;Allocated;Released;Failed
type IPAllocationPhase string

// IPAllocationPhaseAllocated is an allocation whose addresses are in use.
const IPAllocationPhaseAllocated IPAllocationPhase = "Allocated"

// IPAllocationStatus is what the allocator gave.
type IPAllocationStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// +optional
	Phase IPAllocationPhase `json:"phase,omitempty"`
	// +optional
	CIDR string `json:"cidr,omitempty"`
	// +optional
	StartAddress string `json:"startAddress,omitempty"`
	// +optional
	EndAddress string `json:"endAddress,omitempty"`
	// +optional
	Addresses []string `json:"addresses,omitempty"`
	// +optional
	AllocatedCount int32 `json:"allocatedCount,omitempty"`
	// +optional
	AllocatedAt *metav1.Time `json:"allocatedAt,omitempty"`
	// +optional
	AllocatedBy string `json:"allocatedBy,omitempty"`
	// +optional
	ReleasedAt *metav1.Time `json:"releasedAt,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
