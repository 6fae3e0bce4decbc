package check

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// The governance rules judge the author of a change: what the server cannot see when a
// GitOps controller applies it (docs/rules.md §13). Their
// words are the gate's own, never the server's, and their rule ids start with "author-".

// authorKnown reports whether base names the author anywhere: a User, or an access entry
// of a team or of one of its environments (by e-mail or by group).
func (c *change) authorKnown() bool {
	email := policy.NormalizeEmail(c.author.Username)
	for _, u := range c.base.set.Users() {
		if policy.NormalizeEmail(u.Spec.Email) == email {
			return true
		}
	}
	for _, t := range c.base.set.Teams() {
		if policy.TeamRole(t, c.author, false).Role != policy.RoleNone {
			return true
		}
		for _, e := range t.Spec.Environments {
			if policy.EnvironmentRole(t, e.Name, c.author, false).Role != policy.RoleNone {
				return true
			}
		}
	}
	return false
}

// unknownAuthor is the one finding for an author base does not name, instead of "role
// none" on every object.
func (c *change) unknownAuthor() Finding {
	msg := fmt.Sprintf("the author %q matches no team member, group or User in the base, so no change of theirs can be judged as theirs; "+
		"if this is a CI login or a no-reply address, map it to the e-mail the Team objects use (--author-map FILE, a line \"login: e-mail\"), or pass that e-mail with --as",
		c.author.Username)
	if !c.opt.Complete && len(c.base.set.Teams()) == 0 {
		// The teams live outside the tree: the author's roles cannot be read at all.
		msg = fmt.Sprintf("not judged: the author %q is named by no Team or User in the manifests, which hold none: the author's roles were not judged; "+
			"give --context to read the teams from the platform, or --complete if the manifests are the whole platform", c.author.Username)
		return Finding{Message: msg, Rule: RuleNotJudged, Severity: SeverityWarning}
	}
	return Finding{Message: msg, Rule: RuleAuthorUnknown, Severity: SeverityError}
}

// teamOf is the team whose rules govern a cluster: its teamRef, or the team whose
// namespace holds it. by says how it was found.
func (t *tree) teamOf(tc *v1alpha1.TenantCluster) (*v1alpha1.Team, string) {
	if name := tc.TeamName(); name != "" {
		return t.team(name), name
	}
	for _, team := range t.set.Teams() {
		if team.TeamNamespace() == tc.Namespace {
			return team, team.Name
		}
	}
	return nil, ""
}

// authority is the author's role for a team and environment, read from base. A team the
// change adds grants nothing: only platform admins act on it. ok is false when the team
// is in neither tree (then f says so).
func (c *change) authority(obj *manifest.Object, tc *v1alpha1.TenantCluster, env string) (role policy.RoleResult, team string, f []Finding, ok bool) {
	bt, name := c.base.teamOf(tc)
	if bt != nil {
		return policy.EnvironmentRole(bt, env, c.author, c.admin), bt.Name, nil, true
	}
	ht, hname := c.head.teamOf(tc)
	if ht != nil {
		r := policy.TeamRole(nil, c.author, c.admin)
		if !c.admin {
			r.Reason = "the team is added by this change, and rights come from the base"
		}
		return r, hname, nil, true
	}
	if name == "" {
		name = tc.Namespace
		return role, name, []Finding{c.head.missing(obj, "metadata.namespace", "Team of namespace", tc.Namespace, "the author's role")}, false
	}
	return role, name, []Finding{c.head.missing(obj, "spec.teamRef.name", "Team", name, "the author's role")}, false
}

// clusterRole checks that the author may create, update or delete the cluster: operator
// or admin in its environment, read from base (docs/rules.md §3.3). The words are
// cluster create's, scale's and delete's, the tools' own.
func (c *change) clusterRole(cl *cluster, verb, env string) ([]Finding, bool) {
	if !c.known {
		// One finding says the author is unknown; a tree without teams judged nothing.
		return nil, !c.opt.Complete && len(c.base.set.Teams()) == 0
	}
	role, team, f, ok := c.authority(cl.obj, cl.c, env)
	if !ok {
		return f, !c.opt.Complete
	}
	if role.Role.CanOperate() {
		return nil, true
	}
	where := fmt.Sprintf("team %q", team)
	if env != "" {
		where = fmt.Sprintf("environment %q of team %q", env, team)
	}
	msg := fmt.Sprintf("user %q may not %s cluster %q in %s: role %s (%s); %s clusters needs operator or admin",
		c.author.Username, verb, cl.c.Name, where, role.Role, role.Reason, gerund(verb))
	if verb == "create" { // cluster create's words
		msg = fmt.Sprintf("user %q may not create clusters in %s: role %s (%s); creating clusters needs operator or admin",
			c.author.Username, where, role.Role, role.Reason)
	}
	return []Finding{findingAt(cl.obj, "", "", msg, RuleRole, SeverityError)}, false
}

func gerund(verb string) string {
	return map[string]string{"create": "creating", "update": "updating", "delete": "deleting"}[verb]
}

// migration judges an environment move: the server admits a label change that carries
// the migration annotation, so the gate asks what `butleradm env migrate` asks: the author
// may migrate into the target environment, and it has room.
func (c *change) migration(bc, hc *cluster) []Finding {
	from, to := bc.c.Labels[v1alpha1.LabelEnvironment], hc.c.Labels[v1alpha1.LabelEnvironment]
	if from == to || hc.c.Annotations[v1alpha1.AnnotationMigration] != "true" || to == "" {
		return nil
	}
	var fs []Finding
	p := "metadata.labels[" + v1alpha1.LabelEnvironment + "]"
	if c.known {
		role, team, f, ok := c.authority(hc.obj, hc.c, to)
		switch {
		case !ok:
			fs = append(fs, f...)
		case !role.Role.CanOperate():
			fs = append(fs, findingAt(hc.obj, p, "", fmt.Sprintf("user %q may not move cluster %q into environment %q of team %q: role %s (%s); moving clusters needs operator or admin in the target environment",
				c.author.Username, hc.c.Name, to, team, role.Role, role.Reason), RuleAuthorMigrate, SeverityError))
		}
	}
	team, _ := c.head.teamOf(hc.c)
	if bt, _ := c.base.teamOf(hc.c); bt != nil {
		team = bt
	}
	if team == nil {
		return fs
	}
	var others []v1alpha1.TenantCluster
	for _, o := range c.baseline[hc.c.Namespace] {
		if o.Name != hc.c.Name {
			others = append(others, o)
		}
	}
	plan := policy.PlanMigration(policy.MigrationRequest{Team: team, Environment: to, Selection: policy.MigrationSelection{Names: []string{hc.c.Name}},
		Clusters: append(others, *bc.c), Relabel: true, Username: c.applier.Username})
	for _, e := range plan.Excess {
		fs = append(fs, findingAt(hc.obj, p, "", "moving it has no room: "+e.Message+" (the caps `butleradm env migrate` checks)", RuleAuthorMigrationRoom, SeverityError))
	}
	return fs
}

// computeSet is the server's "set and not zero" for a compute quota.
func computeSet(q *resource.Quantity) bool { return q != nil && q.Sign() != 0 }
