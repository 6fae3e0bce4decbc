package policy

import "strings"

// ruleTitles name each preflight rule for people, by what it checks rather than how it
// fails (an id like "env-unknown" next to "ok" reads like a failure). Machine output keeps
// the id.
var ruleTitles = map[string]string{
	RuleEnvLabelImmutable:      "environment unchanged",
	RuleEnvLabelRequired:       "environment given",
	RuleEnvUnknown:             "environment exists",
	RuleEnvMaxClusters:         "environment cap",
	RuleMemberCreatorRequired:  "creator recorded",
	RuleMemberCreatorMismatch:  "creator is you",
	RuleMemberCreatorImmutable: "creator unchanged",
	RuleMemberMaxClusters:      "per-member cap",
	RuleProviderNotFound:       "provider exists",
	RuleProviderTeamScope:      "provider open to team",
	RuleProviderAllowed:        "provider allowed",
	RuleProviderMaxClusters:    "provider cluster cap",
	RuleProviderMaxNodes:       "provider node cap",
	RuleTeamMaxClusters:        "team cluster cap",
	RuleTeamMaxTotalNodes:      "team node cap",
	RuleTeamMaxNodesPerCluster: "nodes per cluster",
	RuleTeamMaxCPU:             "team CPU quota",
	RuleTeamMaxMemory:          "team memory quota",
	RuleTeamMaxStorage:         "team storage quota",
	RuleTeamAllowedVersions:    "version allowed",
	RuleTeamAddons:             "addons allowed",
	RuleProviderRefUnset:       "provider given",
}

// RuleTitle is rule's name for people ("per-member cap" for member-max-clusters); a
// ClusterCreationPolicy rule is "policy: OPTION"; an id it does not know is returned as is.
func RuleTitle(rule string) string {
	if t, ok := ruleTitles[rule]; ok {
		return t
	}
	if opt, ok := strings.CutPrefix(rule, RuleCreationPolicy); ok {
		return "policy: " + opt
	}
	return rule
}
