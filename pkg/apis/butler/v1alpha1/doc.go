// Package v1alpha1 holds the Go types of the Butler API (butler.butlerlabs.dev/v1alpha1)
// that the toolkit reads and writes. JSON names follow the live CRDs, not the documents,
// where the two differ (see docs/rules.md §1).
//
// +kubebuilder:object:generate=true
// +groupName=butler.butlerlabs.dev
package v1alpha1
