// Package teamedit is what the butleradm commands that change a Team share: parsing the
// --access-user, --access-group, limit and --cluster-default flags, and the step that
// checks a change against the Team webhook's rules before the store writes it.
package teamedit

import (
	"strings"
	"unicode"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// validRoles is how roles are listed in messages.
const validRoles = "admin, operator, viewer"

// UserGrant is one --access-user EMAIL:ROLE. An empty Role means "remove the entry"
// (only where clearing is allowed).
type UserGrant struct {
	Name string
	Role v1alpha1.TeamRole
	Flag string // as typed, for messages
}

// GroupGrant is one --access-group NAME:ROLE[:IDP]. An empty Role means "remove the entry".
type GroupGrant struct {
	Name             string
	Role             v1alpha1.TeamRole
	IdentityProvider string
	Flag             string
}

func parseRole(flag, typed, role string, allowClear bool) (v1alpha1.TeamRole, error) {
	r := strings.ToLower(strings.TrimSpace(role))
	switch v1alpha1.TeamRole(r) {
	case v1alpha1.RoleAdmin, v1alpha1.RoleOperator, v1alpha1.RoleViewer:
		return v1alpha1.TeamRole(r), nil
	}
	if r == "" {
		if allowClear {
			return "", nil
		}
		return "", cmdutil.UsageError("--%s %q: a role is required (valid: %s)", flag, typed, validRoles)
	}
	return "", cmdutil.UsageError("--%s %q: unknown role %q (valid: %s)", flag, typed, role, validRoles)
}

// ParseUserGrant reads EMAIL:ROLE. The e-mail is trimmed and lower-cased, the form the
// server compares. With allowClear, "EMAIL:" (no role) asks to remove the entry.
func ParseUserGrant(s string, allowClear bool) (UserGrant, error) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return UserGrant{}, cmdutil.UsageError("--access-user %q: want EMAIL:ROLE, role one of %s", s, validRoles)
	}
	name := policy.NormalizeEmail(s[:i])
	if name == "" {
		return UserGrant{}, cmdutil.UsageError("--access-user %q: the e-mail is empty", s)
	}
	if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return UserGrant{}, cmdutil.UsageError("--access-user %q: the e-mail contains a space", s)
	}
	role, err := parseRole("access-user", s, s[i+1:], allowClear)
	if err != nil {
		return UserGrant{}, err
	}
	return UserGrant{Name: name, Role: role, Flag: s}, nil
}

// ParseGroupGrant reads NAME:ROLE[:IDP]. The group name is kept as typed (trimmed): the
// webhook compares group names exactly. With allowClear, "NAME:" or "NAME::IDP" asks to
// remove the entry.
func ParseGroupGrant(s string, allowClear bool) (GroupGrant, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) < 2 {
		return GroupGrant{}, cmdutil.UsageError("--access-group %q: want NAME:ROLE[:IDENTITY-PROVIDER], role one of %s", s, validRoles)
	}
	name := strings.TrimSpace(parts[0])
	if name == "" {
		return GroupGrant{}, cmdutil.UsageError("--access-group %q: the group name is empty", s)
	}
	role, err := parseRole("access-group", s, parts[1], allowClear)
	if err != nil {
		return GroupGrant{}, err
	}
	g := GroupGrant{Name: name, Role: role, Flag: s}
	if len(parts) == 3 {
		g.IdentityProvider = strings.TrimSpace(parts[2])
	}
	return g, nil
}

// ParseAccess parses the repeatable access flags; the same e-mail twice (case-insensitive)
// or the same group and identity provider twice is a usage error.
func ParseAccess(users, groups []string, allowClear bool) ([]UserGrant, []GroupGrant, error) {
	var us []UserGrant
	seenU := map[string]bool{}
	for _, s := range users {
		u, err := ParseUserGrant(s, allowClear)
		if err != nil {
			return nil, nil, err
		}
		if seenU[u.Name] {
			return nil, nil, cmdutil.UsageError("--access-user: %q is given more than once", u.Name)
		}
		seenU[u.Name] = true
		us = append(us, u)
	}
	var gs []GroupGrant
	seenG := map[[2]string]bool{}
	for _, s := range groups {
		g, err := ParseGroupGrant(s, allowClear)
		if err != nil {
			return nil, nil, err
		}
		key := [2]string{g.Name, g.IdentityProvider}
		if seenG[key] {
			if g.IdentityProvider != "" {
				return nil, nil, cmdutil.UsageError("--access-group: %q (identity provider %q) is given more than once", g.Name, g.IdentityProvider)
			}
			return nil, nil, cmdutil.UsageError("--access-group: %q is given more than once", g.Name)
		}
		seenG[key] = true
		gs = append(gs, g)
	}
	return us, gs, nil
}

// NewAccess builds an access block from grants (none clears), nil when empty.
func NewAccess(users []UserGrant, groups []GroupGrant) *v1alpha1.TeamAccess {
	a := &v1alpha1.TeamAccess{}
	ApplyAccess(a, users, groups)
	return PruneAccess(a)
}

// ApplyAccess merges grants into a: a grant with a role adds the entry or changes the role
// of the existing one (users matched case-insensitively, groups by name and identity
// provider); a grant without a role removes the entry, if there is one.
func ApplyAccess(a *v1alpha1.TeamAccess, users []UserGrant, groups []GroupGrant) {
	for _, u := range users {
		i := indexUser(a.Users, u.Name)
		switch {
		case u.Role == "" && i >= 0:
			a.Users = append(a.Users[:i], a.Users[i+1:]...)
		case u.Role == "":
		case i >= 0:
			a.Users[i].Role = u.Role
		default:
			a.Users = append(a.Users, v1alpha1.TeamUser{Name: u.Name, Role: u.Role})
		}
	}
	for _, g := range groups {
		i := indexGroup(a.Groups, g.Name, g.IdentityProvider)
		switch {
		case g.Role == "" && i >= 0:
			a.Groups = append(a.Groups[:i], a.Groups[i+1:]...)
		case g.Role == "":
		case i >= 0:
			a.Groups[i].Role = g.Role
		default:
			a.Groups = append(a.Groups, v1alpha1.TeamGroup{Name: g.Name, Role: g.Role, IdentityProvider: g.IdentityProvider})
		}
	}
}

// PruneAccess returns nil for a nil or empty block, and empty lists as nil.
func PruneAccess(a *v1alpha1.TeamAccess) *v1alpha1.TeamAccess {
	if a == nil || (len(a.Users) == 0 && len(a.Groups) == 0) {
		return nil
	}
	if len(a.Users) == 0 {
		a.Users = nil
	}
	if len(a.Groups) == 0 {
		a.Groups = nil
	}
	return a
}

func indexUser(users []v1alpha1.TeamUser, name string) int {
	for i, u := range users {
		if policy.NormalizeEmail(u.Name) == name {
			return i
		}
	}
	return -1
}

func indexGroup(groups []v1alpha1.TeamGroup, name, idp string) int {
	for i, g := range groups {
		if g.Name == name && g.IdentityProvider == idp {
			return i
		}
	}
	return -1
}
