package policy

import (
	"fmt"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Rule ids of the membership decisions (docs/rules.md §3.3).
const (
	RuleTeamMembers = "team-members"
	RuleTeamDelete  = "team-delete"
)

// MayChangeMembers decides who may add, remove or re-role a Team's members and groups:
// its team admins (§8.2's test) and platform admins. The webhook has no rule of its own
// for spec.access; live the server's RBAC decides whether a Team may be written at all, so
// this is the tools' decision, applied in both modes so that a team operator granted
// write access to the Team object still cannot hand out roles (docs/rules.md §3.3).
func MayChangeMembers(team *v1alpha1.Team, id Identity, platformAdmin bool) *Denial {
	if team == nil || IsTeamAdmin(team, id, platformAdmin) {
		return nil
	}
	return &Denial{RuleTeamMembers, fmt.Sprintf(
		"user %q may not change the members of team %q: only its team admins and platform admins may", id.Username, team.Name)}
}

// MayDeleteTeam decides a Team delete: platform admins only, and only once the team has
// no TenantClusters left (clusters counts them, deleting ones included), so that no
// cluster is left without the team whose limits and access govern it.
func MayDeleteTeam(team *v1alpha1.Team, id Identity, platformAdmin bool, clusters int) *Denial {
	if team == nil {
		return nil
	}
	if !platformAdmin {
		return &Denial{RuleTeamDelete, fmt.Sprintf(
			"user %q may not delete team %q: only platform admins may", id.Username, team.Name)}
	}
	if clusters > 0 {
		return &Denial{RuleTeamDelete, fmt.Sprintf(
			"team %q still has %d cluster(s): delete or move them first", team.Name, clusters)}
	}
	return nil
}

// LastAdminRemoved reports whether an access change leaves a team that had a team admin
// (a user or group entry with role admin) with none, so nobody but platform admins could
// manage it any more.
func LastAdminRemoved(old, updated *v1alpha1.TeamAccess) bool {
	return hasAdmin(old) && !hasAdmin(updated)
}

func hasAdmin(a *v1alpha1.TeamAccess) bool {
	if a == nil {
		return false
	}
	for _, u := range a.Users {
		if u.Role == v1alpha1.RoleAdmin {
			return true
		}
	}
	for _, g := range a.Groups {
		if g.Role == v1alpha1.RoleAdmin {
			return true
		}
	}
	return false
}
