package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// User is a Butler user; platform admin rights come from it (CONTRACT.md §2).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=usr
type User struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   UserSpec   `json:"spec,omitempty"`
	Status UserStatus `json:"status,omitempty"`
}

// UserList is a list of Users.
//
// +kubebuilder:object:root=true
type UserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []User `json:"items"`
}

// UserSpec describes a user.
type UserSpec struct {
	// +kubebuilder:validation:Format=email
	Email string `json:"email"`
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// +optional
	Avatar string `json:"avatar,omitempty"`
	// +kubebuilder:default=false
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// +kubebuilder:validation:Enum=sso;internal
	// +kubebuilder:default=internal
	// +optional
	AuthType string `json:"authType,omitempty"`
	// +optional
	SSOProvider string `json:"ssoProvider,omitempty"`
	// +optional
	SSOSubject string `json:"ssoSubject,omitempty"`
	// IsPlatformAdmin is deprecated in favour of PlatformRole.
	// +kubebuilder:default=false
	// +optional
	IsPlatformAdmin bool `json:"isPlatformAdmin,omitempty"`
	// +kubebuilder:validation:Enum=admin;viewer;""
	// +optional
	PlatformRole string `json:"platformRole,omitempty"`
	// +optional
	SSHKeys []SSHKey `json:"sshKeys,omitempty"`
}

// SSHKey is a public key of the user.
type SSHKey struct {
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +kubebuilder:validation:MinLength=1
	PublicKey string `json:"publicKey"`
	// +optional
	Fingerprint string `json:"fingerprint,omitempty"`
	// +optional
	AddedAt *metav1.Time `json:"addedAt,omitempty"`
}

// UserStatus is what the server observed.
type UserStatus struct {
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	FailedLoginAttempts int32 `json:"failedLoginAttempts,omitempty"`
}

// IsPlatformAdmin is true when either the deprecated flag or platformRole says admin.
func (u *User) IsPlatformAdmin() bool {
	return u.Spec.IsPlatformAdmin || u.Spec.PlatformRole == "admin"
}

// IdentityProvider is an OIDC provider; its platformRoleGroups grant platform roles.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=idp
type IdentityProvider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IdentityProviderSpec   `json:"spec,omitempty"`
	Status IdentityProviderStatus `json:"status,omitempty"`
}

// IdentityProviderList is a list of IdentityProviders.
//
// +kubebuilder:object:root=true
type IdentityProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IdentityProvider `json:"items"`
}

// IdentityProviderSpec configures the provider.
type IdentityProviderSpec struct {
	// +kubebuilder:validation:Enum=oidc
	Type string `json:"type"`
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// +optional
	OIDC *OIDCConfig `json:"oidc,omitempty"`
	// +optional
	PlatformRoleGroups []PlatformRoleGroup `json:"platformRoleGroups,omitempty"`
}

// OIDCConfig is the OIDC client configuration.
type OIDCConfig struct {
	// +kubebuilder:validation:MinLength=1
	ClientID        string          `json:"clientID"`
	ClientSecretRef SecretReference `json:"clientSecretRef"`
	// +kubebuilder:validation:Pattern=`^https://`
	IssuerURL string `json:"issuerURL"`
	// +kubebuilder:validation:Pattern=`^https?://`
	RedirectURL string `json:"redirectURL"`
	// +kubebuilder:default=email
	// +optional
	EmailClaim string `json:"emailClaim,omitempty"`
	// +kubebuilder:default=groups
	// +optional
	GroupsClaim string `json:"groupsClaim,omitempty"`
	// +optional
	HostedDomain string `json:"hostedDomain,omitempty"`
	// +kubebuilder:default=false
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
	// +optional
	Scopes []string `json:"scopes,omitempty"`
	// +optional
	GoogleWorkspace *GoogleWorkspaceConfig `json:"googleWorkspace,omitempty"`
}

// GoogleWorkspaceConfig lets Butler read Google groups.
type GoogleWorkspaceConfig struct {
	// +kubebuilder:validation:Format=email
	AdminEmail              string          `json:"adminEmail"`
	ServiceAccountSecretRef SecretReference `json:"serviceAccountSecretRef"`
}

// PlatformRoleGroup grants a platform role to a group.
type PlatformRoleGroup struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +kubebuilder:validation:Enum=admin;viewer
	Role string `json:"role"`
}

// IdentityProviderStatus is what the server observed.
type IdentityProviderStatus struct {
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +kubebuilder:validation:Enum=Pending;Ready;Failed
	// +optional
	Phase string `json:"phase,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	LastValidatedTime *metav1.Time `json:"lastValidatedTime,omitempty"`
	// +optional
	DiscoveredEndpoints *DiscoveredEndpoints `json:"discoveredEndpoints,omitempty"`
}

// DiscoveredEndpoints are the provider's OIDC endpoints.
type DiscoveredEndpoints struct {
	AuthorizationEndpoint string `json:"authorizationEndpoint,omitempty"`
	TokenEndpoint         string `json:"tokenEndpoint,omitempty"`
	UserInfoEndpoint      string `json:"userInfoEndpoint,omitempty"`
	JWKSURI               string `json:"jwksURI,omitempty"`
}
