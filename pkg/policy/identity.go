package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// NormalizeEmail is the form of an e-mail the tools write (the creator-email of a cluster they
// create) and show: surrounding white space trimmed and ASCII letters lower-cased. It is not
// how the webhook compares e-mails: that is EmailsEqual.
func NormalizeEmail(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// EmailsEqual is the webhook's comparison of two e-mails (a creator-email with the
// requesting user, an owner with a creator, a User's spec.email with the requesting user):
// Unicode simple case folding (strings.EqualFold), without trimming. So " bob@example.com"
// is not "bob@example.com", and the Kelvin sign U+212A equals "k", as the server has it.
func EmailsEqual(a, b string) bool { return strings.EqualFold(a, b) }

// EmailKey is a key under which e-mails that EmailsEqual calls equal are one: each rune
// replaced by the smallest rune of its simple case-folding orbit, which is exactly the
// relation strings.EqualFold tests. For grouping, not for printing.
func EmailKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// ownerKeyMax is the longest OwnerKey kept as EmailKey's text: longer than any e-mail
// (254 bytes); a longer owner is kept as its digest.
const ownerKeyMax = 256

// OwnerKey is EmailKey, but no longer than a few hundred bytes whatever s is: a key over
// ownerKeyMax is replaced by "SHA256:" and the upper-case hex of its SHA-256, a text
// EmailKey leaves as it is (so OwnerKey(OwnerKey(s)) == OwnerKey(s)). Who keeps owners by
// the thousand (the webhook's ledger of admitted clusters) keeps this, not s, and still
// groups them as EmailsEqual does.
func OwnerKey(s string) string {
	k := EmailKey(s)
	if len(k) <= ownerKeyMax {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "SHA256:" + strings.ToUpper(hex.EncodeToString(sum[:]))
}

// sameOwner is EmailsEqual, but also true of an owner and its OwnerKey.
func sameOwner(a, b string) bool {
	if len(a) <= ownerKeyMax && len(b) <= ownerKeyMax {
		return EmailsEqual(a, b)
	}
	return OwnerKey(a) == OwnerKey(b)
}

// CheckEmail says why s cannot name a person: a non-ASCII character (a look-alike such as
// U+212A KELVIN SIGN for "K" would pass for another address), or white space or a control
// character inside it. nil for a plain name; it does not insist on an "@" (live user names
// such as "system:admin" are no e-mails). Surrounding white space is NormalizeEmail's to
// trim, not an error.
func CheckEmail(s string) error {
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r > unicode.MaxASCII:
			return fmt.Errorf("%q contains the non-ASCII character %U %q: e-mails are compared as ASCII, so a look-alike would not match (type the address in plain ASCII)", s, r, r)
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return fmt.Errorf("%q contains white space or a control character (%U)", s, r)
		}
	}
	return nil
}

// NormalizeGroupName reduces a group name the way butler-server does (docs/rules.md §2.2):
// trim; "CN=DevOps,OU=Groups,DC=corp" becomes "DevOps" (value of the first RDN);
// "eng@corp.com" becomes "eng" (cut at the last "@"); lower-case.
func NormalizeGroupName(s string) string {
	g := strings.TrimSpace(s)
	if len(g) >= 3 && strings.EqualFold(g[:3], "CN=") {
		first, _, _ := strings.Cut(g, ",")
		if _, v, ok := strings.Cut(first, "="); ok {
			g = v
		}
	}
	if i := strings.LastIndex(g, "@"); i >= 0 {
		g = g[:i]
	}
	return strings.ToLower(g)
}

// groupSet is an identity's group lookup set: lower(g) and NormalizeGroupName(g).
type groupSet map[string]struct{}

func newGroupSet(groups []string) groupSet {
	set := make(groupSet, 2*len(groups))
	for _, g := range groups {
		set[strings.ToLower(g)] = struct{}{}
		set[NormalizeGroupName(g)] = struct{}{}
	}
	return set
}

// matches reports whether a configured group name names one of the identity's groups.
// Empty keys never match: the server would let "@a" and "@b" (both "") match each other,
// which grants access by accident rather than by configuration.
func (s groupSet) matches(cfg string) bool {
	for _, k := range [2]string{strings.ToLower(cfg), NormalizeGroupName(cfg)} {
		if k == "" {
			continue
		}
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

// idpAllows applies the identityProvider filter: an entry bound to a provider is skipped
// only when the identity's provider is known and different.
func idpAllows(entryIdP, idIdP string) bool {
	return entryIdP == "" || idIdP == "" || strings.EqualFold(entryIdP, idIdP)
}

// PlatformAdmin is the Team webhook's platform-admin test on the User objects (docs/rules.md
// §2.3): the first User, in the order given, whose spec.email equals id.Username
// (EmailsEqual) decides by its spec.isPlatformAdmin alone; platformRole and IdentityProvider
// platformRoleGroups are not read. why says what made an admin ("" for none). decided is
// false when no User matches: the server then
// asks the API server (a SubjectAccessReview for update on teams.butler.butlerlabs.dev),
// which is the caller's business (see MastersGroup for the offline answer).
func PlatformAdmin(id Identity, users []v1alpha1.User) (admin, decided bool, why string) {
	for i := range users {
		u := &users[i]
		if !EmailsEqual(u.Spec.Email, id.Username) {
			continue
		}
		if u.Spec.IsPlatformAdmin {
			return true, true, fmt.Sprintf("User %q has isPlatformAdmin true", u.Name)
		}
		return false, true, ""
	}
	return false, false, ""
}

// MastersGroup is the group the API server's authorizer allows everything: where no User
// decides and there is no server to ask (offline), an identity in it is a platform admin,
// because the SubjectAccessReview the server would make allows it on every cluster.
const MastersGroup = "system:masters"

// OfflinePlatformAdmin is PlatformAdmin where there is no API server to ask (manifests, a
// repository's base): when no User decides, only a member of MastersGroup is an admin.
func OfflinePlatformAdmin(id Identity, users []v1alpha1.User) (bool, string) {
	if admin, decided, why := PlatformAdmin(id, users); decided {
		return admin, why
	}
	if InMastersGroup(id) {
		return true, fmt.Sprintf("no User matches and group %q may do anything on the API server", MastersGroup)
	}
	return false, ""
}

// InMastersGroup reports whether id belongs to MastersGroup.
func InMastersGroup(id Identity) bool {
	for _, g := range id.Groups {
		if g == MastersGroup {
			return true
		}
	}
	return false
}

// Grant is one access entry that applies to an identity.
type Grant struct {
	Role   Role
	Source string // "team", "env" or "platform"
	Via    string // `user "bob@example.com"`, `group "devs"`, `platform admin`
}

// RoleResult is an effective role with where it came from.
type RoleResult struct {
	Role   Role
	Source string // "platform", "team", "env", or "" when the identity has no role
	Reason string
	Grants []Grant
}

// accessGrants lists the entries of access that apply to id, in spec order, and the highest
// role among them (RoleNone when nothing applies).
func accessGrants(access *v1alpha1.TeamAccess, source string, id Identity) (Role, []Grant) {
	if access == nil {
		return RoleNone, nil
	}
	best := RoleNone
	var grants []Grant
	email := NormalizeEmail(id.Username)
	if email != "" {
		for _, u := range access.Users {
			if NormalizeEmail(u.Name) == email {
				r := ParseRole(string(u.Role))
				grants = append(grants, Grant{Role: r, Source: source, Via: fmt.Sprintf("user %q", u.Name)})
				best = max(best, r)
			}
		}
	}
	if len(id.Groups) > 0 {
		set := newGroupSet(id.Groups)
		for _, g := range access.Groups {
			if g.Name == "" || !idpAllows(g.IdentityProvider, id.IdentityProvider) || !set.matches(g.Name) {
				continue
			}
			r := ParseRole(string(g.Role))
			grants = append(grants, Grant{Role: r, Source: source, Via: fmt.Sprintf("group %q", g.Name)})
			best = max(best, r)
		}
	}
	return best, grants
}

// TeamRole is id's role in team: the highest matching users[] or groups[] entry; platform
// admins are admin in every team.
func TeamRole(team *v1alpha1.Team, id Identity, platformAdmin bool) RoleResult {
	var res RoleResult
	if team != nil {
		res.Role, res.Grants = accessGrants(&team.Spec.Access, "team", id)
	}
	if platformAdmin {
		res.Grants = append(res.Grants, Grant{Role: RoleAdmin, Source: "platform", Via: "platform admin"})
		res.Role, res.Source, res.Reason = RoleAdmin, "platform", "platform admin"
		return res
	}
	if res.Role == RoleNone {
		res.Reason = "not a member"
		return res
	}
	res.Source, res.Reason = "team", "team "+res.Role.String()
	return res
}

// EnvironmentRole is the higher of id's team role and the role env's access grants: an
// environment can elevate, never lower. An empty or unknown env gives the team role.
func EnvironmentRole(team *v1alpha1.Team, env string, id Identity, platformAdmin bool) RoleResult {
	res := TeamRole(team, id, platformAdmin)
	if team == nil || env == "" {
		return res
	}
	e := team.Environment(env)
	if e == nil {
		return res
	}
	envRole, envGrants := accessGrants(e.Access, "env", id)
	res.Grants = append(res.Grants, envGrants...)
	switch {
	case envRole > res.Role && res.Role == RoleNone:
		res.Reason = fmt.Sprintf("env %s grants %s", env, envRole)
		res.Role, res.Source = envRole, "env"
	case envRole > res.Role:
		res.Reason = fmt.Sprintf("env %s elevates %s to %s", env, res.Role, envRole)
		res.Role, res.Source = envRole, "env"
	case res.Source == "team" && res.Role != RoleAdmin && envRole == RoleNone:
		res.Reason = fmt.Sprintf("team %s; no env override", res.Role)
	case res.Source == "team" && res.Role != RoleAdmin:
		res.Reason = fmt.Sprintf("team %s; env %s grants %s, which does not elevate", res.Role, env, envRole)
	}
	return res
}

// AccessEntry is one row of a team's effective-access table.
type AccessEntry struct {
	User        string `json:"user"`
	Environment string `json:"environment"`
	Role        string `json:"role"`
	Source      string `json:"source"`
	Reason      string `json:"reason,omitempty"`
}

// AccessTable lists every member's effective role per environment: all environments in
// spec order when env is "", only env otherwise, and one row with Environment "" when the
// team has none. Members are spec.access.users (e-mail lower-cased) then spec.access.groups
// ("group:<name>"); duplicates are listed once.
func AccessTable(team *v1alpha1.Team, env string) []AccessEntry {
	if team == nil {
		return nil
	}
	type member struct {
		label string
		id    Identity
	}
	var members []member
	seen := map[string]bool{}
	for _, u := range team.Spec.Access.Users {
		label := NormalizeEmail(u.Name)
		if label == "" || seen[label] {
			continue
		}
		seen[label] = true
		members = append(members, member{label, Identity{Username: u.Name}})
	}
	for _, g := range team.Spec.Access.Groups {
		label := "group:" + g.Name
		if g.Name == "" || seen[label] {
			continue
		}
		seen[label] = true
		// The provider is left unknown so that entries bound to any provider apply.
		members = append(members, member{label, Identity{Groups: []string{g.Name}}})
	}

	var envs []string
	switch {
	case env != "":
		envs = []string{env}
	case len(team.Spec.Environments) == 0:
		envs = []string{""}
	default:
		for _, e := range team.Spec.Environments {
			envs = append(envs, e.Name)
		}
	}

	out := make([]AccessEntry, 0, len(members)*len(envs))
	for _, m := range members {
		for _, e := range envs {
			r := EnvironmentRole(team, e, m.id, false)
			out = append(out, AccessEntry{User: m.label, Environment: e, Role: r.Role.String(), Source: r.Source, Reason: r.Reason})
		}
	}
	return out
}

// IsTeamAdmin mirrors the Team webhook's team-admin test (docs/rules.md §8.2), which is
// narrower than TeamRole: a users[] entry must say exactly "admin", and a groups[] entry
// counts only when its name equals one of id.Groups exactly, without normalisation.
func IsTeamAdmin(team *v1alpha1.Team, id Identity, platformAdmin bool) bool {
	if platformAdmin {
		return true
	}
	if team == nil {
		return false
	}
	for _, u := range team.Spec.Access.Users {
		// The webhook's strings.EqualFold, untrimmed (EmailsEqual).
		if EmailsEqual(u.Name, id.Username) && u.Role == v1alpha1.RoleAdmin {
			return true
		}
	}
	for _, g := range team.Spec.Access.Groups {
		if g.Role != v1alpha1.RoleAdmin {
			continue
		}
		for _, ig := range id.Groups {
			if ig == g.Name {
				return true
			}
		}
	}
	return false
}
