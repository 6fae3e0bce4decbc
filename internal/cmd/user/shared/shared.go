// Package shared is what the user commands share: the row a User is shown as, never the
// object itself.
package shared

import "github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"

// Row is one user in the computed view. The User objects themselves are not printed: their
// status holds invite token hashes and password Secret references, which are nobody's
// business on a terminal or in a CI log.
type Row struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	DisplayName  string `json:"displayName,omitempty"`
	PlatformRole string `json:"platformRole"`
	Auth         string `json:"authType"`
	Phase        string `json:"phase,omitempty"`
	Disabled     bool   `json:"disabled"`
}

// Admin is spec.platformRole of a platform admin (the CRD's enum: admin, viewer or none).
// Admins by an identity provider's group are not Users' roles: auth whoami tells them.
const Admin = "admin"

// RowOf is a user's row. The platform role is spec.platformRole, else "admin" for the
// deprecated spec.isPlatformAdmin; the sign-in is spec.authType, "internal" by default as
// the CRD defaults it.
func RowOf(u *v1alpha1.User) Row {
	role := u.Spec.PlatformRole
	if role == "" && u.Spec.IsPlatformAdmin {
		role = Admin
	}
	auth := u.Spec.AuthType
	if auth == "" {
		auth = "internal"
	}
	return Row{Name: u.Name, Email: u.Spec.Email, DisplayName: u.Spec.DisplayName, PlatformRole: role,
		Auth: auth, Phase: string(u.Status.Phase), Disabled: u.Spec.Disabled}
}
