package check

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// rules are what a cluster request is judged against: its team, its ProviderConfig and
// the ClusterCreationPolicies.
type rules struct {
	team     *v1alpha1.Team
	provider *v1alpha1.ProviderConfig
	policies []v1alpha1.ClusterCreationPolicy
}

// rulesFor are the rules in base (falling back to head for a team or ProviderConfig the
// change adds) and in head, and what the change edits among them ("" when nothing).
func (c *change) rulesFor(tc *v1alpha1.TenantCluster) (old, cur rules, edited string) {
	cur = rules{team: c.head.team(tc.TeamName()), provider: c.head.provider(tc), policies: c.head.policies}
	old = rules{team: c.base.team(tc.TeamName()), provider: c.base.provider(tc), policies: c.base.policies}
	if old.team == nil {
		old.team = cur.team
	}
	if old.provider == nil {
		old.provider = cur.provider
	}
	var what []string
	if !equality.Semantic.DeepEqual(old.team, cur.team) && cur.team != nil {
		what = append(what, fmt.Sprintf("Team %q", cur.team.Name))
	}
	if !equality.Semantic.DeepEqual(old.provider, cur.provider) && cur.provider != nil {
		what = append(what, fmt.Sprintf("ProviderConfig %q", cur.provider.Name))
	}
	if !equality.Semantic.DeepEqual(old.policies, cur.policies) {
		what = append(what, "the ClusterCreationPolicies")
	}
	return old, cur, strings.Join(what, ", ")
}

// admitBoth admits a cluster request under the old and the new rules: a violation either
// gives is a finding, and one that only one of them gives says which.
func (c *change) admitBoth(obj *manifest.Object, req policy.ClusterRequest) (fs []Finding, allowed bool) {
	old, cur, edited := c.rulesFor(req.Cluster)
	run := func(r rules) policy.ClusterRequest {
		q := req
		q.Team, q.ProviderConfig, q.Policies = r.team, r.provider, r.policies
		if q.Operation == policy.Create && r.team != nil {
			q.Addons = defaultAddons(r.team, req.Cluster.Labels[v1alpha1.LabelEnvironment])
		}
		return q
	}
	dOld := c.base.admit(run(old))
	fs = decisionFindings(obj, dOld)
	if edited == "" {
		return fs, dOld.Allowed()
	}
	dCur := c.head.admit(run(cur))
	inOld, inCur := messages(dOld), messages(dCur)
	for i := range fs {
		if fs[i].Severity == SeverityError && !inCur[fs[i].Message] {
			fs[i].Note = fmt.Sprintf("under the rules before this change: it also edits %s, and the cluster may be applied first; the stricter answer wins", edited)
		}
	}
	for _, f := range decisionFindings(obj, dCur) {
		if f.Severity == SeverityError && !inOld[f.Message] {
			f.Note = fmt.Sprintf("under the rules as this change leaves them: it also edits %s, which may be applied first; the stricter answer wins", edited)
			fs = append(fs, f)
		}
	}
	return fs, dOld.Allowed() && dCur.Allowed()
}

func messages(d policy.Decision) map[string]bool {
	m := map[string]bool{}
	for _, v := range d.Violations {
		m[v.Error.Error()] = true
	}
	return m
}

// admit is AdmitCluster, except that a ProviderConfig the tree does not hold is not taken
// for a missing one unless the tree is complete: the rules that need it are skipped, and
// the tree's check says so (not judged).
func (t *tree) admit(req policy.ClusterRequest) policy.Decision {
	if t.complete || req.Cluster.Spec.ProviderConfigRef == nil || req.ProviderConfig != nil {
		return policy.AdmitCluster(req)
	}
	strip := func(tc *v1alpha1.TenantCluster) *v1alpha1.TenantCluster {
		if tc == nil {
			return nil
		}
		cp := *tc
		cp.Spec.ProviderConfigRef = nil
		return &cp
	}
	req.Cluster, req.Old = strip(req.Cluster), strip(req.Old)
	d := policy.AdmitCluster(req)
	checks := d.Checks[:0]
	for _, ck := range d.Checks {
		if ck.Rule != policy.RuleProviderRefUnset {
			checks = append(checks, ck)
		}
	}
	d.Checks = checks
	return d
}
