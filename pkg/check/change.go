package check

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Change checks head against base: the state of head (aggregates and every object's own
// rules), and each object added, changed or deleted as the server would judge that request
// from author. Who the author is and whether they are a platform admin is read from base,
// the state the server holds when the change is applied; so are the teams, ProviderConfigs
// and policies a new or changed cluster is judged against, falling back to head for ones
// the change adds.
func Change(base, head *manifest.Set, author policy.Identity) *Report {
	b, h := newTree(base), newTree(head)
	r := &Report{Mode: "change", Objects: h.objects()}
	c := &change{base: b, head: h, author: author}
	c.admin, _ = policy.PlatformAdmin(author, derefs(base.Users()), derefs(base.IdentityProviders()))

	added, changed, deleted := c.diffClusters()
	// Aggregates on head: the clusters head keeps from base are replayed; the ones the
	// change adds are judged below as their creates (counted after the others, as the
	// replay would count them), so each carries the server's one answer to its request.
	order := make([]*cluster, 0, len(h.clusters))
	for _, hc := range h.clusters {
		if !contains(added, hc) {
			order = append(order, hc)
		}
	}
	r.Findings = c.demoteUnchanged(h.state(order))
	r.Findings = append(r.Findings, c.clusters(added, changed, deleted)...)
	r.Findings = append(r.Findings, c.teams()...)
	r.Findings = append(r.Findings, c.providers()...)
	r.Findings = append(r.Findings, c.policies()...)
	r.finish()
	return r
}

// demoteUnchanged makes the state findings of objects the change leaves as they are
// warnings: the change did not bring them, and the server does not re-judge an object
// nobody sends. What the change breaks lands on what it adds or changes (the replay counts
// the change's clusters last), so it stays an error.
func (c *change) demoteUnchanged(fs []Finding) []Finding {
	for i := range fs {
		f := &fs[i]
		if f.Kind == "" || f.Severity != SeverityError {
			continue
		}
		b, h := c.base.set.Find(f.Kind, f.Namespace, f.Name), c.head.set.Find(f.Kind, f.Namespace, f.Name)
		if b != nil && h != nil && equality.Semantic.DeepEqual(b.Obj, h.Obj) {
			f.Severity = SeverityWarning
		}
	}
	return fs
}

type change struct {
	base, head *tree
	author     policy.Identity
	admin      bool
}

func contains(list []*cluster, c *cluster) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

func derefs[T any](ps []*T) []T {
	out := make([]T, 0, len(ps))
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

func (t *tree) clusterByKey(key string) (*cluster, bool) {
	i := sort.Search(len(t.clusters), func(i int) bool { return t.clusters[i].key() >= key })
	if i < len(t.clusters) && t.clusters[i].key() == key {
		return t.clusters[i], true
	}
	return nil, false
}

// diffClusters splits head's clusters into added and changed (what the rules read: spec,
// labels, annotations, as the webhook compares) and lists base's deleted ones; each list
// sorted by namespace and name, the stable order of the change's requests.
func (c *change) diffClusters() (added, changed, deleted []*cluster) {
	for _, hc := range c.head.clusters {
		bc, ok := c.base.clusterByKey(hc.key())
		switch {
		case !ok:
			added = append(added, hc)
		case bc.obj.Obj == hc.obj.Obj: // one decoding shared by base and head: unchanged
		case !sameCluster(&bc.c, &hc.c):
			changed = append(changed, hc)
		}
	}
	for _, bc := range c.base.clusters {
		if _, ok := c.head.clusterByKey(bc.key()); !ok {
			deleted = append(deleted, bc)
		}
	}
	return added, changed, deleted
}

func sameCluster(a, b *v1alpha1.TenantCluster) bool {
	return equality.Semantic.DeepEqual(a.Spec, b.Spec) && equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations)
}

// team is the team a request is judged against: base's, else head's (one the change adds).
func (c *change) team(name string) *v1alpha1.Team {
	if t := c.base.team(name); t != nil {
		return t
	}
	return c.head.team(name)
}

// provider is the ProviderConfig a request is judged against: base's, else head's.
func (c *change) provider(tc *v1alpha1.TenantCluster) *v1alpha1.ProviderConfig {
	if pc := c.base.provider(tc); pc != nil {
		return pc
	}
	return c.head.provider(tc)
}

// clusters judges the cluster requests: creates (counted against base and the change's
// earlier creates), updates and deletes, each first for the author's role.
func (c *change) clusters(added, changed, deleted []*cluster) []Finding {
	var fs []Finding
	created := map[string][]v1alpha1.TenantCluster{}
	for _, hc := range added {
		tc := &hc.c
		if f, ok := c.role(hc, "create"); !ok {
			fs = append(fs, f)
			continue
		}
		siblings := append(c.base.namespace(tc.Namespace), created[tc.Namespace]...)
		req := c.base.createRequest(tc, siblings, c.author.Username)
		req.Team, req.ProviderConfig = c.team(tc.TeamName()), c.provider(tc)
		if req.Team != nil {
			req.Addons = defaultAddons(req.Team, tc.Labels[v1alpha1.LabelEnvironment])
		}
		fs = append(fs, decisionFindings(hc.obj, policy.AdmitCluster(req))...)
		created[tc.Namespace] = append(created[tc.Namespace], *tc)
	}
	for _, hc := range changed {
		bc, _ := c.base.clusterByKey(hc.key())
		if f, ok := c.role(bc, "update"); !ok {
			fs = append(fs, f)
			continue
		}
		tc := &hc.c
		req := policy.ClusterRequest{Operation: policy.Update, Cluster: tc, Old: &bc.c, Team: c.team(tc.TeamName()),
			Siblings: c.base.namespace(tc.Namespace), ProviderConfig: c.provider(tc), Username: c.author.Username, Policies: c.base.policies}
		fs = append(fs, decisionFindings(hc.obj, policy.AdmitCluster(req))...)
	}
	for _, bc := range deleted {
		if f, ok := c.role(bc, "delete"); !ok {
			fs = append(fs, f)
		}
	}
	return fs
}

func (t *tree) namespace(ns string) []v1alpha1.TenantCluster {
	var out []v1alpha1.TenantCluster
	for _, c := range t.clusters {
		if c.c.Namespace == ns {
			out = append(out, c.c)
		}
	}
	return out
}

// role checks that the author may create, update or delete the cluster: operator or admin
// in its environment (docs/rules.md §3.3), in the words of cluster create, scale, delete.
func (c *change) role(cl *cluster, verb string) (Finding, bool) {
	team := c.team(cl.c.TeamName())
	if team == nil {
		return Finding{}, true // no team: the state check reports the reference
	}
	env := cl.c.Labels[v1alpha1.LabelEnvironment]
	role := policy.EnvironmentRole(team, env, c.author, c.admin)
	if role.Role.CanOperate() {
		return Finding{}, true
	}
	where := fmt.Sprintf("team %q", team.Name)
	if env != "" {
		where = fmt.Sprintf("environment %q of team %q", env, team.Name)
	}
	msg := fmt.Sprintf("user %q may not %s cluster %q in %s: role %s (%s); %s clusters needs operator or admin",
		c.author.Username, verb, cl.c.Name, where, role.Role, role.Reason, gerund(verb))
	if verb == "create" { // cluster create's words
		msg = fmt.Sprintf("user %q may not create clusters in %s: role %s (%s); creating clusters needs operator or admin",
			c.author.Username, where, role.Role, role.Reason)
	}
	return findingAt(cl.obj, "", "Forbidden", msg, RuleRole, SeverityError), false
}

func gerund(verb string) string {
	return map[string]string{"create": "creating", "update": "updating", "delete": "deleting"}[verb]
}

// teams judges added and changed Teams with the Team webhook's rules for the author.
func (c *change) teams() []Finding {
	var fs []Finding
	for _, ht := range c.head.set.Teams() {
		bt := c.base.team(ht.Name)
		var d *policy.Denial
		switch {
		case bt == nil:
			d = policy.AdmitTeam(policy.Create, nil, ht, c.author, c.admin)
		case !equality.Semantic.DeepEqual(bt.Spec, ht.Spec):
			d = policy.AdmitTeam(policy.Update, bt, ht, c.author, c.admin)
		}
		if d != nil {
			fs = append(fs, atPatch(findingAt(c.head.objOf[ht], "", "Forbidden", d.Message, d.Rule, SeverityError), c.head.objOf[ht], d))
		}
	}
	return fs
}

// providers refuses deleting a ProviderConfig that head's clusters still reference.
func (c *change) providers() []Finding {
	var fs []Finding
	clusters := make([]v1alpha1.TenantCluster, 0, len(c.head.clusters))
	for _, hc := range c.head.clusters {
		clusters = append(clusters, hc.c)
	}
	for _, bp := range c.base.set.ProviderConfigs() {
		hp := c.head.set.ProviderConfig(bp.Namespace, bp.Name)
		if hp == nil {
			if e := policy.ProviderDeleteGuard(bp, clusters); e != nil {
				fs = append(fs, findingAt(c.base.objOf[bp], e.Field, string(e.Type), e.Error(), RuleProviderInUse, SeverityError))
			}
		}
	}
	return fs
}

// policies refuses ClusterCreationPolicy changes by anyone but a platform admin.
func (c *change) policies() []Finding {
	if c.admin {
		return nil
	}
	var fs []Finding
	for _, hp := range c.head.set.ClusterCreationPolicies() {
		bp := c.base.set.ClusterCreationPolicy(hp.Name)
		verb := "update"
		switch {
		case bp == nil:
			verb = "create"
		case equality.Semantic.DeepEqual(bp.Spec, hp.Spec):
			continue
		}
		msg := fmt.Sprintf("user %q may not %s ClusterCreationPolicy %q: ClusterCreationPolicies are managed by platform admins", c.author.Username, verb, hp.Name)
		fs = append(fs, findingAt(c.head.objOf[hp], "", "Forbidden", msg, RulePlatformAdminOnly, SeverityError))
	}
	return fs
}
