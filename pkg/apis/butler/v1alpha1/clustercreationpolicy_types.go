package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ClusterCreationPolicy is a platform admin's curation of the options a TenantCluster may
// use (images, networks, Nutanix clusters, storage containers): pins and allow-lists the
// TenantCluster webhook enforces, defaults and recommendations the console shows
// (docs/cluster-creation-policies.md).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=ccp
// +kubebuilder:printcolumn:name="Team",type=string,JSONPath=`.spec.scope.team.teamRef.name`,description="Team this policy targets (team scope)"
// +kubebuilder:printcolumn:name="Env",type=string,JSONPath=`.spec.scope.teamAndEnvironment.environmentName`,description="Environment this policy targets (teamAndEnvironment scope)"
// +kubebuilder:printcolumn:name="Providers",type=string,JSONPath=`.spec.targetProviders`,description="Providers this policy filters (empty means all)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterCreationPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterCreationPolicySpec   `json:"spec,omitempty"`
	Status ClusterCreationPolicyStatus `json:"status,omitempty"`
}

// ClusterCreationPolicyList is a list of ClusterCreationPolicies.
//
// +kubebuilder:object:root=true
type ClusterCreationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterCreationPolicy `json:"items"`
}

// Option types a ClusterCreationPolicy may curate, in the order the server reports them.
const (
	OptionImage            = "image"
	OptionNetwork          = "network"
	OptionCluster          = "cluster"
	OptionStorageContainer = "storageContainer"
)

// OptionTypes lists the option keys in the server's order.
var OptionTypes = []string{OptionImage, OptionNetwork, OptionCluster, OptionStorageContainer}

// Modes of an OptionRule: pin and allowList are enforced, default and recommended only
// shape the console's choices.
const (
	ModePin         = "pin"
	ModeAllowList   = "allowList"
	ModeDefault     = "default"
	ModeRecommended = "recommended"
)

// ClusterCreationPolicySpec is the scope, the providers and the rules of one policy.
type ClusterCreationPolicySpec struct {
	Scope PolicyScope `json:"scope"`
	// TargetProviders filters by provider type; empty means every provider.
	// +optional
	TargetProviders []PolicyProviderType `json:"targetProviders,omitempty"`
	// Options maps an option type (image, network, cluster, storageContainer) to its rule;
	// the keys are checked by admission, not by the schema.
	// +optional
	Options map[string]OptionRule `json:"options,omitempty"`
}

// PolicyProviderType is a provider type a policy may target.
// +kubebuilder:validation:Enum=harvester;nutanix;proxmox;azure;aws;gcp;local
type PolicyProviderType string

// PolicyScope selects the requests a policy applies to: exactly one of its fields.
//
// +kubebuilder:validation:XValidation:rule="(has(self.platformWide)?1:0) + (has(self.team)?1:0) + (has(self.teamAndEnvironment)?1:0) == 1",message="exactly one of platformWide, team, or teamAndEnvironment must be set"
type PolicyScope struct {
	// +optional
	PlatformWide *PlatformWideScope `json:"platformWide,omitempty"`
	// +optional
	Team *TeamScope `json:"team,omitempty"`
	// +optional
	TeamAndEnvironment *TeamAndEnvironmentScope `json:"teamAndEnvironment,omitempty"`
}

// PlatformWideScope applies a policy to every team and environment.
type PlatformWideScope struct{}

// TeamScope applies a policy to one team in all its environments.
type TeamScope struct {
	TeamRef LocalObjectReference `json:"teamRef"`
}

// TeamAndEnvironmentScope applies a policy to one environment of one team.
type TeamAndEnvironmentScope struct {
	TeamRef LocalObjectReference `json:"teamRef"`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	EnvironmentName string `json:"environmentName"`
}

// OptionRule is the curation of one option type.
type OptionRule struct {
	// +kubebuilder:validation:Enum=pin;allowList;default;recommended
	Mode string `json:"mode"`
	// +optional
	Values []string `json:"values,omitempty"`
	// +optional
	Default string `json:"default,omitempty"`
	// +kubebuilder:validation:MaxLength=120
	// +optional
	RecommendedReason string `json:"recommendedReason,omitempty"`
}

// ClusterCreationPolicyStatus is reserved: nothing writes it yet.
type ClusterCreationPolicyStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	StaleReferences []string `json:"staleReferences,omitempty"`
}

// Tier is how specific a policy's scope is; a more specific tier wins.
type Tier int

// Tiers, least specific first.
const (
	TierNone Tier = iota // no scope set
	TierPlatformWide
	TierTeam
	TierTeamAndEnvironment
)

// String is the scope field's name, as the tools print it.
func (t Tier) String() string {
	switch t {
	case TierPlatformWide:
		return "platformWide"
	case TierTeam:
		return "team"
	case TierTeamAndEnvironment:
		return "teamAndEnvironment"
	}
	return "none"
}

// Tier is the tier of the scope: the most specific field set (admission refuses a scope
// with several, the schema one with none).
func (s *PolicyScope) Tier() Tier {
	switch {
	case s.TeamAndEnvironment != nil:
		return TierTeamAndEnvironment
	case s.Team != nil:
		return TierTeam
	case s.PlatformWide != nil:
		return TierPlatformWide
	}
	return TierNone
}

// Target is the team and environment the scope names ("" for what it does not name).
func (s *PolicyScope) Target() (team, env string) {
	switch {
	case s.TeamAndEnvironment != nil:
		return s.TeamAndEnvironment.TeamRef.Name, s.TeamAndEnvironment.EnvironmentName
	case s.Team != nil:
		return s.Team.TeamRef.Name, ""
	}
	return "", ""
}

// ScopeRuleMessage is the message of the CRD's CEL rule on spec.scope.
const ScopeRuleMessage = "exactly one of platformWide, team, or teamAndEnvironment must be set"

// Validate is the CRD's CEL rule on spec.scope, as the API server reports it; nil when
// exactly one scope is set.
func (s *PolicyScope) Validate(path *field.Path) *field.Error {
	n := 0
	for _, set := range []bool{s.PlatformWide != nil, s.Team != nil, s.TeamAndEnvironment != nil} {
		if set {
			n++
		}
	}
	if n == 1 {
		return nil
	}
	return field.Invalid(path, "object", ScopeRuleMessage)
}
