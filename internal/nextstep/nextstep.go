// Package nextstep words for people what a refusal means and what to do next: the figures
// (how far over which cap), who may raise the cap, and the command that shows more. It is
// shared by auth can-i (its reasons) and by cluster create and scale (the lines after a
// refusal), so one fact reads the same everywhere. The refusal's own message, the server's,
// is never reworded here.
package nextstep

import (
	"fmt"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// CapReasons counts the cluster caps a create would meet: the team's ceiling, the
// environment's cap and the requester's own per-member cap, one line each, ": full" on a
// cap the create would go past; ok is false when one is full.
func CapReasons(t *v1alpha1.Team, env string, clusters []v1alpha1.TenantCluster, user string) (lines []string, ok bool) {
	ok = true
	if line, fits := teamCap(t, clusters); line != "" {
		lines, ok = append(lines, line), ok && fits
	}
	if env == "" {
		return lines, ok
	}
	if line, fits := envCap(t, env, clusters); line != "" {
		lines, ok = append(lines, line), ok && fits
	}
	if line, fits := memberCap(t, env, clusters, user); line != "" {
		lines, ok = append(lines, line), ok && fits
	}
	return lines, ok
}

func teamCap(t *v1alpha1.Team, clusters []v1alpha1.TenantCluster) (string, bool) {
	l := t.Spec.ResourceLimits
	if l == nil || l.MaxClusters == nil {
		return "", true
	}
	n, max := len(clusters), int(*l.MaxClusters)
	return fmt.Sprintf("team %q has %d of %d cluster(s)%s", t.Name, n, max, full(n+1 <= max)), n+1 <= max
}

func envCap(t *v1alpha1.Team, env string, clusters []v1alpha1.TenantCluster) (string, bool) {
	u := policy.EnvironmentUsageOf(t, env, clusters)
	if u.MaxClusters <= 0 {
		return "", true
	}
	fits := u.Clusters+1 <= int(u.MaxClusters)
	return fmt.Sprintf("environment %q has %d of %d cluster(s)%s", env, u.Clusters, u.MaxClusters, full(fits)), fits
}

func memberCap(t *v1alpha1.Team, env string, clusters []v1alpha1.TenantCluster, user string) (string, bool) {
	u := policy.EnvironmentUsageOf(t, env, clusters)
	if u.MaxClustersPerMember <= 0 {
		return "", true
	}
	owned := policy.MemberCount(clusters, env, user, "")
	fits := owned+1 <= int(u.MaxClustersPerMember)
	return fmt.Sprintf("you own %d of %d cluster(s) allowed per member in %q%s", owned, u.MaxClustersPerMember, env, full(fits)), fits
}

func full(ok bool) string {
	if ok {
		return ""
	}
	return ": full"
}

// Refusal is what a refused create or scale knows.
type Refusal struct {
	Verb     string // "create" or "scale"
	Team     *v1alpha1.Team
	Env      string
	User     string
	Clusters []v1alpha1.TenantCluster // the team's, before the request
	Decision policy.Decision
	// More is the command that shows every check (create: the same with --explain).
	More string
}

// Lines are the hint after the server's message: per violation its figures and the next
// step, then the command that shows more. Lines stay short: they are read on a terminal.
func (r Refusal) Lines() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range r.Decision.Violations {
		for _, l := range r.violation(v.Rule) {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	if r.More != "" {
		out = append(out, "More: "+r.More)
	}
	return out
}

func (r Refusal) check(rule string) policy.Check {
	for _, c := range r.Decision.Checks {
		if c.Rule == rule {
			return c
		}
	}
	return policy.Check{Rule: rule}
}

// violation words one refused rule: the figures, then who can change what ("Next:").
func (r Refusal) violation(rule string) []string {
	team := r.Team.Name
	teamAdmin := fmt.Sprintf("a team admin (butlerctl team access %s)", team)
	switch rule {
	case policy.RuleMemberMaxClusters:
		line, _ := memberCap(r.Team, r.Env, r.Clusters, r.User)
		return []string{capitalize(line) + ".",
			fmt.Sprintf("Next: delete one of yours (butlerctl cluster list --team %s), or ask %s to raise the per-member cap of %q.", team, teamAdmin, r.Env)}
	case policy.RuleEnvMaxClusters:
		line, _ := envCap(r.Team, r.Env, r.Clusters)
		return []string{capitalize(line) + ".",
			fmt.Sprintf("Next: ask %s to raise it, or use another environment (butlerctl env list --team %s).", teamAdmin, team)}
	case policy.RuleTeamMaxClusters:
		line, _ := teamCap(r.Team, r.Clusters)
		return []string{capitalize(line) + ".",
			fmt.Sprintf("Next: delete one, or ask a platform admin to raise it (butleradm team set-limits %s --max-clusters N).", team)}
	case policy.RuleEnvUnknown, policy.RuleEnvLabelRequired:
		return []string{fmt.Sprintf("Team %q has the environments %s (butlerctl env list --team %s).", team, envNames(r.Team), team)}
	case policy.RuleTeamMaxCPU, policy.RuleTeamMaxMemory, policy.RuleTeamMaxStorage,
		policy.RuleTeamMaxTotalNodes, policy.RuleTeamMaxNodesPerCluster,
		policy.RuleProviderMaxClusters, policy.RuleProviderMaxNodes:
		return r.quota(rule)
	case policy.RuleTeamAllowedVersions, policy.RuleTeamAddons, policy.RuleProviderAllowed, policy.RuleProviderTeamScope:
		c := r.check(rule)
		return []string{fmt.Sprintf("%s: team %q allows %s (butlerctl team get %s).", capitalize(policy.RuleTitle(rule)), team, dash(c.Limit), team)}
	case policy.RuleProviderNotFound:
		return []string{fmt.Sprintf("Next: ask a platform admin which ProviderConfigs team %q may use.", team)}
	}
	if opt, ok := strings.CutPrefix(rule, policy.RuleCreationPolicy); ok {
		c := r.check(rule)
		return []string{fmt.Sprintf("ClusterCreationPolicy %q allows %s %s (butlerctl policy list --team %s%s).", c.Policy, opt, dash(c.Limit), team, envFlag(r.Env))}
	}
	return nil
}

// quota words a quota's figures from its check: the cap, the usage, what the request adds.
func (r Refusal) quota(rule string) []string {
	c := r.check(rule)
	title := capitalize(policy.RuleTitle(rule))
	figures := fmt.Sprintf("%s: %s of %s in use; this %s adds %s, %s in all.", title, dash(c.Usage), dash(c.Limit), r.Verb, dash(c.Requested), dash(c.After))
	if rule == policy.RuleTeamMaxNodesPerCluster {
		figures = fmt.Sprintf("%s: team %q allows at most %s worker(s) per cluster; this %s asks for %s.", title, r.Team.Name, dash(c.Limit), r.Verb, dash(c.Requested))
	}
	return []string{figures, fmt.Sprintf("Next: ask for less, or ask a platform admin to raise the quota (butleradm team set-limits %s).", r.Team.Name)}
}

func envNames(t *v1alpha1.Team) string {
	var names []string
	for _, e := range t.Spec.Environments {
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func envFlag(env string) string {
	if env == "" {
		return ""
	}
	return " --environment " + env
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Wrap breaks hint lines at width (80 when 0) between words, the continuation indented;
// a "More:" line is a command to copy and stays whole.
func Wrap(lines []string, width int) []string {
	if width <= 0 {
		width = 80
	}
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "More: ") || len(l) <= width {
			out = append(out, l)
			continue
		}
		cur := ""
		for _, w := range strings.Fields(l) {
			switch {
			case cur == "":
				cur = w
			case len(cur)+1+len(w) > width:
				out = append(out, cur)
				cur = "  " + w
			default:
				cur += " " + w
			}
		}
		out = append(out, cur)
	}
	return out
}
