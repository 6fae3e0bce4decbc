package policy

import (
	"fmt"
	"sort"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// EnvironmentStanding is how an environment stands against its caps, for the read
// commands: a tree already over a cap (edited by hand, or caps lowered later) is reported
// as over, never as OK.
type EnvironmentStanding struct {
	// Status is QuotaExceeded when the environment or a member is past a cap, QuotaWarning
	// above 80 % of one (docs/rules.md §7) or when a cluster's annotations
	// defeat the per-member cap, else QuotaOK.
	Status string `json:"status"`
	// OverMembers are the members past maxClustersPerMember, with what they own.
	OverMembers map[string]int `json:"overMembers,omitempty"`
	// Problems says each thing that is wrong, one sentence each, in a fixed order.
	Problems []string `json:"problems,omitempty"`
}

// StandingOf reports u's standing; clusters are the team namespace's, for the
// per-cluster checks of the per-member cap.
func StandingOf(u EnvironmentUsage, clusters []v1alpha1.TenantCluster) EnvironmentStanding {
	st := EnvironmentStanding{Status: QuotaOK}
	var pcts []int
	if u.MaxClusters > 0 {
		pcts = append(pcts, percent(u.Clusters, u.MaxClusters))
		if u.Clusters > int(u.MaxClusters) {
			st.Problems = append(st.Problems, fmt.Sprintf("environment %q has %d cluster(s), over its cap of %d", u.Environment, u.Clusters, u.MaxClusters))
		}
	}
	if u.MaxClustersPerMember > 0 {
		members := make([]string, 0, len(u.Members))
		for m := range u.Members {
			members = append(members, m)
		}
		sort.Strings(members)
		for _, m := range members {
			n := u.Members[m]
			pcts = append(pcts, percent(n, u.MaxClustersPerMember))
			if n > int(u.MaxClustersPerMember) {
				if st.OverMembers == nil {
					st.OverMembers = map[string]int{}
				}
				st.OverMembers[m] = n
				st.Problems = append(st.Problems, fmt.Sprintf("user %q owns %d cluster(s) in environment %q, over the cap of %d per member", m, n, u.Environment, u.MaxClustersPerMember))
			}
		}
	}
	st.Status = QuotaStatus(pcts...)
	if u.MaxClustersPerMember > 0 {
		if p := creatorProblems(u.Environment, clusters); len(p) > 0 {
			st.Problems = append(st.Problems, p...)
			if st.Status == QuotaOK {
				st.Status = QuotaWarning
			}
		}
	}
	return st
}

// creatorProblems lists the clusters of env whose annotations defeat a per-member cap:
// no creator-email (the server requires one where the cap is set), or an owner annotation
// naming someone other than the creator (the cluster then counts toward that other person,
// so a creator escapes their own cap).
func creatorProblems(env string, clusters []v1alpha1.TenantCluster) []string {
	var out []string
	for i := range clusters {
		c := &clusters[i]
		if c.Labels[v1alpha1.LabelEnvironment] != env {
			continue
		}
		creator, owner := c.Annotations[v1alpha1.AnnotationCreatorEmail], c.Annotations[v1alpha1.AnnotationOwner]
		switch {
		case creator == "":
			out = append(out, fmt.Sprintf("cluster %q has no %s annotation, which environment %q requires (it sets maxClustersPerMember)", c.Name, v1alpha1.AnnotationCreatorEmail, env))
		case owner != "" && !EmailsEqual(owner, creator):
			out = append(out, fmt.Sprintf("cluster %q is owned by %q but was created by %q: it counts toward %q's cap, not its creator's", c.Name, owner, creator, NormalizeEmail(owner)))
		}
	}
	return out
}

// percent is n of max as a rounded percentage; max > 0.
func percent(n int, max int32) int { return roundDiv(int64(n)*100, int64(max)) }
