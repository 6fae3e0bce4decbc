package policy

import (
	"fmt"
	"math"
	"sort"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// TeamStanding is a team's one quota status (docs/rules.md §7), computed once for every
// view (team list, team get): the worst of its quota lines and of its environments'
// standings, with the limit that set it.
type TeamStanding struct {
	Status string `json:"status"`
	// SetBy is the limit that set Status, with its figures: the one furthest over; "" when
	// Status is OK (no limit set it). It is
	// short, to fit a line of team get: "maxCPUCores: 40 of 48 (83%)" for the team's own,
	// "env prod maxClusters: 7 of 6 (117%)" for an environment's.
	SetBy string `json:"setBy,omitempty"`
}

// limitField names each quota line's limit as the Team spells it.
var limitField = map[string]string{
	ResourceClusters: "maxClusters",
	ResourceNodes:    "maxTotalNodes",
	ResourceCPU:      "maxCPUCores",
	ResourceMemory:   "maxMemory",
	ResourceStorage:  "maxStorage",
}

// StandingOfTeam is team's TeamStanding among clusters (every TenantCluster of its
// namespace): its quota lines (TeamQuota), then each environment's caps and per-member caps
// and the annotations that defeat them (StandingOf), in the team's order. Ties go to the
// higher utilisation, then to the first met.
func StandingOfTeam(team *v1alpha1.Team, clusters []v1alpha1.TenantCluster) TeamStanding {
	best, bestPct := TeamStanding{Status: QuotaOK}, -1
	consider := func(status string, pct int, setBy string) {
		if r, br := statusRank(status), statusRank(best.Status); r > br || (r == br && pct > bestPct) {
			best, bestPct = TeamStanding{Status: status, SetBy: setBy}, pct
		}
	}
	for _, l := range TeamQuota(team, clusters).Lines {
		if l.Limit == "" {
			continue
		}
		pct, text := math.MaxInt, "over a limit of zero"
		if l.Utilization != nil {
			pct, text = *l.Utilization, fmt.Sprintf("%d%%", *l.Utilization)
		}
		consider(l.Status, pct, fmt.Sprintf("%s: %s of %s (%s)", limitField[l.Resource], l.Used, l.Limit, text))
	}
	if team == nil {
		return finish(best)
	}
	for _, e := range team.Spec.Environments {
		u := EnvironmentUsageOf(team, e.Name, clusters)
		if u.MaxClusters > 0 {
			p := percent(u.Clusters, u.MaxClusters)
			consider(QuotaStatus(p), p, fmt.Sprintf("env %s maxClusters: %d of %d (%d%%)", e.Name, u.Clusters, u.MaxClusters, p))
		}
		if u.MaxClustersPerMember <= 0 {
			continue
		}
		members := make([]string, 0, len(u.Members))
		for m := range u.Members {
			members = append(members, m)
		}
		sort.Strings(members)
		for _, m := range members {
			p := percent(u.Members[m], u.MaxClustersPerMember)
			consider(QuotaStatus(p), p, fmt.Sprintf("env %s maxClustersPerMember: %s owns %d of %d (%d%%)", e.Name, m, u.Members[m], u.MaxClustersPerMember, p))
		}
		for _, p := range creatorProblems(e.Name, clusters) {
			consider(QuotaWarning, 0, p)
		}
	}
	return finish(best)
}

// finish drops SetBy from an OK standing: no limit set it.
func finish(st TeamStanding) TeamStanding {
	if st.Status == QuotaOK {
		st.SetBy = ""
	}
	return st
}

// LimitsBelowUsage says, one sentence each, which of team's limits are below what its
// clusters already use: the team's quota lines over 100 %, each environment's maxClusters
// and each member over maxClustersPerMember. Setting such a limit is allowed (the server
// checks limits on create and scale, not on a Team update), so the commands that set limits
// warn with these figures.
func LimitsBelowUsage(team *v1alpha1.Team, clusters []v1alpha1.TenantCluster) []string {
	var out []string
	for _, l := range TeamQuota(team, clusters).Lines {
		if l.Status != QuotaExceeded {
			continue
		}
		then := "creates and scale-ups that need more are refused until usage drops"
		if l.Resource == ResourceClusters {
			then = "creates are refused until some are deleted"
		}
		out = append(out, fmt.Sprintf("%s is %s, below the %s %s team %q uses: %s", limitField[l.Resource], l.Limit, l.Used, l.Resource, team.Name, then))
	}
	if team == nil {
		return out
	}
	for _, e := range team.Spec.Environments {
		u := EnvironmentUsageOf(team, e.Name, clusters)
		if u.MaxClusters > 0 && u.Clusters > int(u.MaxClusters) {
			out = append(out, fmt.Sprintf("environment %q maxClusters is %d, below the %d cluster(s) it has: creates there are refused until some are deleted",
				e.Name, u.MaxClusters, u.Clusters))
		}
		if u.MaxClustersPerMember <= 0 {
			continue
		}
		members := make([]string, 0, len(u.Members))
		for m := range u.Members {
			members = append(members, m)
		}
		sort.Strings(members)
		for _, m := range members {
			if n := u.Members[m]; n > int(u.MaxClustersPerMember) {
				out = append(out, fmt.Sprintf("environment %q maxClustersPerMember is %d, below the %d cluster(s) %s owns there: their creates there are refused until some are deleted",
					e.Name, u.MaxClustersPerMember, n, m))
			}
		}
	}
	return out
}

// NewlyBelowUsage is LimitsBelowUsage of updated less what old already had: the warnings
// a change of limits earns.
func NewlyBelowUsage(old, updated *v1alpha1.Team, clusters []v1alpha1.TenantCluster) []string {
	before := map[string]bool{}
	for _, s := range LimitsBelowUsage(old, clusters) {
		before[s] = true
	}
	var out []string
	for _, s := range LimitsBelowUsage(updated, clusters) {
		if !before[s] {
			out = append(out, s)
		}
	}
	return out
}
