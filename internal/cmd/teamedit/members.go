package teamedit

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Verbs of `team member` and `team group`.
const (
	VerbAdd     = "add"
	VerbRemove  = "remove"
	VerbSetRole = "set-role"
)

// MemberChange is one `team member|group add|remove|set-role`: exactly one of User and
// Group is set; Role is empty for remove.
type MemberChange struct {
	Verb  string
	User  *UserGrant
	Group *GroupGrant
}

// Subject is how the change names its entry in messages: `member "x"` or `group "g"`
// (with its identity provider when one is given).
func (c MemberChange) Subject() string {
	if c.User != nil {
		return fmt.Sprintf("member %q", c.User.Name)
	}
	if c.Group.IdentityProvider != "" {
		return fmt.Sprintf("group %q (identity provider %q)", c.Group.Name, c.Group.IdentityProvider)
	}
	return fmt.Sprintf("group %q", c.Group.Name)
}

// ChangeMembers applies c to the team's spec.access through Apply (Team rules, conflict
// retry live, in-place edit offline), after checking that the caller may change the
// team's members (policy.MayChangeMembers) on every read. A remove or set-role of an entry
// that is not there is exit 3; an add of an entry that is there with another role is exit
// 2 (set-role changes roles); one with the same role, and a set-role to the role it has,
// change nothing (Applied.Updated is nil).
func ChangeMembers(ctx context.Context, s Store, name string, c MemberChange) (Applied, error) {
	team, err := lookup.Team(ctx, s, name)
	if err != nil {
		return Applied{}, err
	}
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return Applied{}, err
	}
	return Apply(ctx, s, team, func(old *v1alpha1.Team) (*v1alpha1.Team, error) {
		if d := policy.MayChangeMembers(old, actor.Identity, actor.PlatformAdmin); d != nil {
			return nil, cmdutil.DeniedError(d)
		}
		current, found := currentRole(&old.Spec.Access, c)
		switch {
		case c.Verb != VerbAdd && !found:
			return nil, cmdutil.NotFoundError("%s is not in team %q", c.Subject(), old.Name)
		case c.Verb == VerbAdd && found && current != role(c):
			return nil, cmdutil.UsageError("%s is already in team %q as %s: use `set-role` to change the role", c.Subject(), old.Name, roleName(current))
		case c.Verb != VerbRemove && found && current == role(c):
			return nil, nil
		}
		updated := old.DeepCopy()
		if c.User != nil {
			ApplyAccess(&updated.Spec.Access, []UserGrant{*c.User}, nil)
		} else {
			ApplyAccess(&updated.Spec.Access, nil, []GroupGrant{*c.Group})
		}
		if pruned := PruneAccess(&updated.Spec.Access); pruned == nil {
			updated.Spec.Access = v1alpha1.TeamAccess{}
		}
		if !actor.PlatformAdmin && policy.LastAdminRemoved(&old.Spec.Access, &updated.Spec.Access) {
			return nil, cmdutil.DeniedError(fmt.Errorf("the change would leave team %q without an admin, so only platform admins could manage it: make another member admin first", old.Name))
		}
		return updated, nil
	})
}

func role(c MemberChange) v1alpha1.TeamRole {
	if c.User != nil {
		return c.User.Role
	}
	return c.Group.Role
}

// currentRole is the role of the entry c names, if there is one.
func currentRole(a *v1alpha1.TeamAccess, c MemberChange) (v1alpha1.TeamRole, bool) {
	if c.User != nil {
		if i := indexUser(a.Users, c.User.Name); i >= 0 {
			return a.Users[i].Role, true
		}
		return "", false
	}
	if i := indexGroup(a.Groups, c.Group.Name, c.Group.IdentityProvider); i >= 0 {
		return a.Groups[i].Role, true
	}
	return "", false
}

// roleName prints a missing role as the server reads it.
func roleName(r v1alpha1.TeamRole) string {
	if r == "" {
		return "viewer (no role set)"
	}
	return string(r)
}

// ParseRole reads a ROLE argument: admin, operator or viewer, any case.
func ParseRole(arg string) (v1alpha1.TeamRole, error) {
	r := strings.ToLower(strings.TrimSpace(arg))
	switch v1alpha1.TeamRole(r) {
	case v1alpha1.RoleAdmin, v1alpha1.RoleOperator, v1alpha1.RoleViewer:
		return v1alpha1.TeamRole(r), nil
	}
	return "", cmdutil.UsageError("unknown role %q (valid: %s)", arg, validRoles)
}

// MemberGrant reads an EMAIL argument (trimmed and lower-cased, the form the server
// compares) with its role ("" for remove).
func MemberGrant(email string, role v1alpha1.TeamRole) (*UserGrant, error) {
	name := policy.NormalizeEmail(email)
	if name == "" {
		return nil, cmdutil.UsageError("the e-mail is empty")
	}
	if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return nil, cmdutil.UsageError("e-mail %q contains a space", email)
	}
	return &UserGrant{Name: name, Role: role, Flag: email}, nil
}

// GroupGrantOf reads a GROUP argument (trimmed; the webhook compares group names exactly)
// with its role ("" for remove) and identity provider.
func GroupGrantOf(group string, role v1alpha1.TeamRole, idp string) (*GroupGrant, error) {
	name := strings.TrimSpace(group)
	if name == "" {
		return nil, cmdutil.UsageError("the group name is empty")
	}
	return &GroupGrant{Name: name, Role: role, IdentityProvider: strings.TrimSpace(idp), Flag: group}, nil
}
