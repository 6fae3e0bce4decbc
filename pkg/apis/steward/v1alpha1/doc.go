// Package v1alpha1 holds the part of Steward's TenantControlPlane (steward.butlerlabs.dev)
// that the toolkit reads and writes: write permissions and the version status.
//
// +kubebuilder:object:generate=true
// +groupName=steward.butlerlabs.dev
package v1alpha1
