package policy

import "strings"

// Role is a team or environment role, ordered so that a higher value is more powerful.
type Role int

// Roles from none to admin.
const (
	RoleNone Role = iota
	RoleViewer
	RoleOperator
	RoleAdmin
)

// ParseRole reads a role as written in Team access; a missing role is viewer (the CRD
// default). Unknown strings are RoleNone.
func ParseRole(s string) Role {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "viewer":
		return RoleViewer
	case "operator":
		return RoleOperator
	case "admin":
		return RoleAdmin
	}
	return RoleNone
}

// String is the role as written in Team access, or "none".
func (r Role) String() string {
	switch r {
	case RoleViewer:
		return "viewer"
	case RoleOperator:
		return "operator"
	case RoleAdmin:
		return "admin"
	}
	return "none"
}

// CanOperate is true for roles that may create, scale or delete clusters.
func (r Role) CanOperate() bool { return r >= RoleOperator }

// Identity is who is asking: the username the server sees (an e-mail for Butler users),
// the groups, and the identity provider those groups came from when known.
type Identity struct {
	Username         string
	Groups           []string
	IdentityProvider string
}
