package policy

import (
	"fmt"
	"sort"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Rules by which this project's webhook deliberately goes beyond Butler's (docs/rules.md
// §15). Each can be switched off in the webhook (`webhook serve --without-rule ID`, or
// `--as-butler` for all), which then answers exactly as Butler does.
const (
	// RuleTeamAuthorityAsWas: who may change a Team's environment limits is judged on the
	// Team as it was, not as changed (Butler judges the new object, so a member who makes
	// themself a team admin in the same update passes).
	RuleTeamAuthorityAsWas = "team-authority-as-was"
	// RuleUnchangedUpdate: an update that changes nothing the rules read is admitted
	// without checks (Butler checks it, so an object broken before a rule existed cannot
	// even lose a finalizer). It admits, so switching it off makes the webhook stricter.
	RuleUnchangedUpdate = "unchanged-update"
)

// beyondButler describes every such rule.
var beyondButler = map[string]string{
	RuleTeamAllowedVersions: "a team's allowedKubernetesVersions, which Butler does not enforce",
	RuleProviderAllowed:     "a team's allowedProviders, which Butler does not enforce",
	RuleTeamAddons:          "a team's allowedAddons and deniedAddons, which Butler does not enforce",
	RuleTeamAuthorityAsWas:  "who may change a Team's environment limits is judged on the Team as it was",
	RuleUnchangedUpdate:     "updates that change nothing the rules read are admitted unchecked",
}

// BeyondButler reports whether rule is one of this project's own, not Butler's.
func BeyondButler(rule string) bool { _, ok := beyondButler[rule]; return ok }

// BeyondButlerRules lists their ids, sorted.
func BeyondButlerRules() []string {
	ids := make([]string, 0, len(beyondButler))
	for id := range beyondButler {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// beyondNote is appended to the message of a refusal by one of these rules, so whoever
// reads it knows Butler itself would not refuse.
func beyondNote(rule string) string {
	return fmt.Sprintf("; this is butler-toolkit's policy, not Butler's (rule %s)", rule)
}

// Without is the decision with the violations (and checks) of the given rules dropped, as
// a webhook with those rules switched off answers.
func (d Decision) Without(off map[string]bool) Decision {
	if len(off) == 0 {
		return d
	}
	out := Decision{}
	for _, c := range d.Checks {
		if !off[c.Rule] {
			out.Checks = append(out.Checks, c)
		}
	}
	for _, v := range d.Violations {
		if !off[v.Rule] {
			out.Violations = append(out.Violations, v)
		}
	}
	return out
}

// TeamAuthorityAsWas refuses a Team update whose environment-limit change AdmitTeam let
// through only because the updated Team makes id a team admin: judged on the Team as it
// was, id is not. nil otherwise.
func TeamAuthorityAsWas(old, updated *v1alpha1.Team, id Identity, platformAdmin bool) *Denial {
	if old == nil || updated == nil || platformAdmin || !envLimitsChanged(old.Spec.Environments, updated.Spec.Environments) {
		return nil
	}
	if IsTeamAdmin(old, id, false) || !IsTeamAdmin(updated, id, false) {
		return nil
	}
	return &Denial{RuleTeamAuthorityAsWas, fmt.Sprintf(
		"spec.environments[].limits may only be modified by team admins of %q or platform admins; user %q is not a team admin before this update",
		updated.Name, id.Username) + beyondNote(RuleTeamAuthorityAsWas)}
}
