package policy

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Rule ids of AdmitTeam denials.
const (
	RuleTeamResourceLimits = "team-resource-limits"
	RuleTeamEnvLimits      = "team-env-limits"
	RuleEnvAccessUser      = "env-access-user"
	RuleEnvAccessGroup     = "env-access-group"
)

// Denial is a Team webhook refusal: a plain message with no field prefix (docs/rules.md §8).
type Denial struct {
	Rule    string
	Message string
}

func (d *Denial) Error() string { return d.Message }

// AdmitTeam decides a Team create or update like the Team webhook: first failure stops.
// old is nil on create; on an update with a nil old, every limit in new counts as a change.
// Other operations are allowed, as the webhook does not see them.
func AdmitTeam(op Operation, old, new *v1alpha1.Team, id Identity, platformAdmin bool) *Denial {
	if new == nil {
		return nil
	}
	switch op {
	case Create:
		if new.Spec.ResourceLimits != nil && !platformAdmin {
			return &Denial{RuleTeamResourceLimits, fmt.Sprintf(
				"spec.resourceLimits may only be set by platform admins; user %q is not a platform admin", id.Username)}
		}
		if !platformAdmin {
			for i := range new.Spec.Environments {
				if new.Spec.Environments[i].Limits != nil {
					return &Denial{RuleTeamEnvLimits, fmt.Sprintf(
						"spec.environments[%d].limits on a new team may only be set by platform admins; user %q is not a platform admin", i, id.Username)}
				}
			}
		}
	case Update:
		if old == nil {
			old = &v1alpha1.Team{}
		}
		if !LimitsEqual(old.Spec.ResourceLimits, new.Spec.ResourceLimits) && !platformAdmin {
			return &Denial{RuleTeamResourceLimits, fmt.Sprintf(
				"spec.resourceLimits may only be modified by platform admins; user %q is not a platform admin", id.Username)}
		}
		if envLimitsChanged(old.Spec.Environments, new.Spec.Environments) && !IsTeamAdmin(new, id, platformAdmin) {
			return &Denial{RuleTeamEnvLimits, fmt.Sprintf(
				"spec.environments[].limits may only be modified by team admins of %q or platform admins; user %q is neither", new.Name, id.Username)}
		}
	default:
		return nil
	}
	return envAccessMembership(new)
}

// limitsEqual is the webhook's reflect.DeepEqual of the Go values. A resource.Quantity
// keeps the spelling it was decoded from, so "1024Mi" and "1Gi", or "1000m" and "1", are a
// change there and so here: re-spelling a limit is a change only platform admins may make.
// Nil and empty blocks differ. Both sides must come from the same kind of decoding (the
// request's JSON, or YAML through the same decoder), as they do on the server, and be
// compared before anything prints them: printing a Quantity caches its canonical spelling.
func LimitsEqual(a, b any) bool {
	return reflect.DeepEqual(a, b)
}

// envLimitsChanged compares limits by environment name: adding an env with limits,
// removing one that had limits, or changing a limits block all count.
func envLimitsChanged(old, new []v1alpha1.EnvironmentSpec) bool {
	byName := func(envs []v1alpha1.EnvironmentSpec) map[string]*v1alpha1.EnvironmentLimits {
		m := make(map[string]*v1alpha1.EnvironmentLimits, len(envs))
		for i := range envs {
			m[envs[i].Name] = envs[i].Limits
		}
		return m
	}
	o, n := byName(old), byName(new)
	for name, l := range o {
		if !LimitsEqual(l, n[name]) {
			return true
		}
	}
	for name, l := range n {
		if _, seen := o[name]; !seen && l != nil {
			return true
		}
	}
	return false
}

// envAccessMembership checks that environment access names only team subjects: users
// compared by strings.ToLower on both sides without trimming, as the webhook compares
// them; groups exactly (no normalisation, identityProvider ignored).
func envAccessMembership(team *v1alpha1.Team) *Denial {
	users := map[string]bool{}
	for _, u := range team.Spec.Access.Users {
		users[strings.ToLower(u.Name)] = true
	}
	groups := map[string]bool{}
	for _, g := range team.Spec.Access.Groups {
		groups[g.Name] = true
	}
	for i := range team.Spec.Environments {
		a := team.Spec.Environments[i].Access
		if a == nil {
			continue
		}
		for _, u := range a.Users {
			if !users[strings.ToLower(u.Name)] {
				return &Denial{RuleEnvAccessUser, fmt.Sprintf(
					"spec.environments[%d].access.users[%q] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users", i, u.Name)}
			}
		}
		for _, g := range a.Groups {
			if !groups[g.Name] {
				return &Denial{RuleEnvAccessGroup, fmt.Sprintf(
					"spec.environments[%d].access.groups[%q] is not a team group; env access is additive only and cannot introduce groups absent from spec.access.groups", i, g.Name)}
			}
		}
	}
	return nil
}

// ValidateEnvironmentName checks label-value syntax with butleradm's messages.
func ValidateEnvironmentName(name string) error {
	if name == "" {
		return fmt.Errorf("environment name is required")
	}
	if len(name) > 63 {
		return fmt.Errorf("environment name %q exceeds 63 characters", name)
	}
	if !envNameAlnum(name[0]) || !envNameAlnum(name[len(name)-1]) {
		return fmt.Errorf("environment name %q must start and end with an alphanumeric character", name)
	}
	// Ranging over runes names a whole non-ASCII character rather than its first byte.
	for _, r := range name {
		if r >= 0x80 || !(envNameAlnum(byte(r)) || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("environment name %q contains invalid character %q", name, string(r))
		}
	}
	return nil
}

func envNameAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
