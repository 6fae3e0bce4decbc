package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// User is a Butler user; platform admin rights come from it (docs/rules.md §2.3).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=usr
// +kubebuilder:printcolumn:name="Email",type=string,JSONPath=`.spec.email`
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Auth",type=string,JSONPath=`.spec.authType`
// +kubebuilder:printcolumn:name="Platform Admin",type=boolean,JSONPath=`.spec.isPlatformAdmin`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Last Login",type=date,JSONPath=`.status.lastLoginTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
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

// UserPhase is the lifecycle phase of a User.
// +kubebuilder:validation:Enum=Pending;Active;Disabled;Locked
type UserPhase string

// User phases.
const (
	UserPhasePending  UserPhase = "Pending"
	UserPhaseActive   UserPhase = "Active"
	UserPhaseDisabled UserPhase = "Disabled"
	UserPhaseLocked   UserPhase = "Locked"
)

// UserStatus is what the server observed. Every live field is typed so that Users exported
// from a cluster decode strictly.
type UserStatus struct {
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// LastSeenGroups are the identity provider's groups at the last login, as the user
	// controller normalised them.
	// +optional
	LastSeenGroups []string `json:"lastSeenGroups,omitempty"`
	// TeamsResolvedAt is when the user controller last resolved status.teams.
	// +optional
	TeamsResolvedAt *metav1.Time `json:"teamsResolvedAt,omitempty"`
	// The enum repeats the type's on purpose: the live CRD carries both (an allOf).
	// +kubebuilder:validation:Enum=Pending;Active;Disabled;Locked
	// +optional
	Phase UserPhase `json:"phase,omitempty"`
	// +optional
	PasswordSecretRef *SecretReference `json:"passwordSecretRef,omitempty"`
	// +optional
	PasswordChangedAt *metav1.Time `json:"passwordChangedAt,omitempty"`
	// +optional
	InviteTokenHash string `json:"inviteTokenHash,omitempty"`
	// +optional
	InviteExpiresAt *metav1.Time `json:"inviteExpiresAt,omitempty"`
	// +optional
	InviteSentAt *metav1.Time `json:"inviteSentAt,omitempty"`
	// +optional
	LastLoginTime *metav1.Time `json:"lastLoginTime,omitempty"`
	// +optional
	LoginCount int64 `json:"loginCount,omitempty"`
	// +optional
	FailedLoginAttempts int32 `json:"failedLoginAttempts,omitempty"`
	// +optional
	LockedUntil *metav1.Time `json:"lockedUntil,omitempty"`
	// +optional
	Teams []UserTeamMembership `json:"teams,omitempty"`
}

// UserTeamMembership is one team the user belongs to, as the server last computed it.
type UserTeamMembership struct {
	Name string `json:"name"`
	Role string `json:"role"`
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
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Issuer",type=string,JSONPath=`.spec.oidc.issuerURL`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
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
	// +listType=map
	// +listMapKey=type
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
