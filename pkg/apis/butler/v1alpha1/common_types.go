package v1alpha1

// Well-known label and annotation keys on TenantClusters (docs/rules.md §1.3).
const (
	LabelEnvironment       = "butler.butlerlabs.dev/environment"
	LabelTeam              = "butler.butlerlabs.dev/team"
	AnnotationCreatorEmail = "butler.butlerlabs.dev/creator-email"
	AnnotationOwner        = "butler.butlerlabs.dev/owner"
	AnnotationMigration    = "butler.butlerlabs.dev/migration-operation"
	// AnnotationExpiresAt is when a throwaway cluster may be deleted: an RFC 3339 time
	// (butler-toolkit's convention; Butler's controllers do not read it).
	AnnotationExpiresAt      = "butler.butlerlabs.dev/expires-at"
	LabelManagedBy           = "app.kubernetes.io/managed-by"
	DefaultProviderNamespace = "butler-system"
	MigrationAnnotationValue = "true"
	PlatformNamespace        = "butler-system"
)

// LocalObjectReference names an object in the same scope.
type LocalObjectReference struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// SecretReference points at a Secret and optionally one key of it.
type SecretReference struct {
	// +kubebuilder:validation:MinLength=1
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Key       string `json:"key,omitempty"`
}
