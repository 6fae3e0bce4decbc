package check

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Options say who a change comes from and how much of the platform the tree is.
type Options struct {
	// Author wrote the change: the governance rules the server cannot see under GitOps
	// (team roles, Team authority, who may change policies, users and providers) judge
	// the author, with the gate's own rule ids and words.
	Author policy.Identity
	// Applier is who the server sees apply the change: the GitOps controller's
	// ServiceAccount. Empty: the author applies by hand. The server's rules judge it, with
	// the server's messages.
	Applier policy.Identity
	// Complete declares the tree the whole platform: a reference it does not resolve is an
	// error instead of "not judged".
	Complete bool
}

// applier is who the server sees.
func (o Options) applier() policy.Identity {
	if o.Applier.Username == "" {
		return o.Author
	}
	return o.Applier
}

// gitOps reports whether someone other than the author applies the change.
func (o Options) gitOps() bool {
	return o.Applier.Username != "" && !strings.EqualFold(o.Applier.Username, o.Author.Username)
}

// Change checks head against base: each object added, changed or deleted as the server
// would judge that request from the applier, and as the governance rules judge its author;
// objects the change leaves as they are keep their tree findings as warnings.
//
// Authority comes from base only: roles, team admins and platform admins are read from the
// state the platform holds before the change, so nothing a change adds grants rights in
// the same change. The rules a changed cluster meets (its Team, ProviderConfig,
// ClusterCreationPolicies) are read from base and from head when the change edits them,
// as Flux and Argo CD may apply the rule and the cluster in either order: the stricter
// answer wins.
func Change(base, head *manifest.Set, o Options) *Report {
	h := newTree(head, o.Complete)
	b := newTree(base, o.Complete)
	r := &Report{Mode: "change", Objects: h.objects()}
	c := &change{base: b, head: h, opt: o, author: o.Author, applier: o.applier(), refused: map[string]*v1alpha1.TenantCluster{},
		decoded: decodedTeams(base, head)}
	c.admin, _ = policy.OfflinePlatformAdmin(o.Author, derefs(base.Users()))
	c.applierAdmin = c.admin
	if o.gitOps() {
		// The controller applies Teams, so RBAC lets it update them; the Team webhook's
		// access review then takes it for a platform admin.
		c.applierAdmin = true
	}
	c.known = c.admin || c.authorKnown()

	added, changed, deleted, unread := c.diffClusters()
	if len(unread) > 0 {
		return unreadableChange(unread)
	}
	c.baselines(added, changed, deleted)
	// The tree's own rules on head, and its aggregates replayed for the clusters head
	// keeps, unchanged ones first: what the change breaks cannot be blamed on them. The
	// server judges updates by the update rules and nothing else, so the replay's findings
	// are warnings; the change's creates are judged below, each as its request. Each
	// cluster is read whole once, its references judged with its request.
	order := make([]*cluster, 0, len(h.clusters))
	for _, list := range [][]*cluster{c.unchanged, changed} {
		order = append(order, list...)
	}
	refs := h.kindRules()
	for _, hc := range added {
		refs = append(refs, h.clusterRefs(hc)...)
	}
	replayed, _ := h.replay(order, false, true, func(wc *cluster) { refs = append(refs, h.clusterRefs(wc)...) })
	for _, f := range replayed {
		if f.Rule == RuleDecode {
			unread = append(unread, f)
		}
	}
	if len(unread) > 0 {
		return unreadableChange(unread)
	}
	fs := c.demoteUnchanged(refs)
	for _, f := range replayed {
		if f.Severity == SeverityError {
			f.Severity = SeverityWarning
			if f.Kind == "TenantCluster" && !contains(c.unchanged, c.head.clusterAt(f.Namespace, f.Name)) {
				f.Note = "the tree breaks this as a create would; the server judges this change as an update, to which the rule does not apply"
			}
		}
		fs = append(fs, f)
	}
	r.Findings = fs
	if !c.known {
		r.Findings = append(r.Findings, c.unknownAuthor())
	}
	judged := c.clusters(added, changed, deleted)
	r.Findings = append(dropRepeated(r.Findings, judged), judged...)
	r.Findings = append(r.Findings, c.objects()...)
	r.Notes = c.notes
	r.Usage = usage(b, h, c.refused, c.keptTeams(r.Findings))
	r.finish()
	return r
}

type change struct {
	base, head *tree
	opt        Options
	author     policy.Identity
	applier    policy.Identity
	// admin: the author is a platform admin in base; applierAdmin: the Team webhook takes
	// the applier for one.
	admin, applierAdmin bool
	// known: base names the author (a member of some team, a User, a platform admin).
	known bool
	// unchanged are head's clusters the change leaves as they are; baseline, by
	// namespace, the clusters a create meets besides the change's other creates.
	unchanged []*cluster
	baseline  map[string][]v1alpha1.TenantCluster
	notes     []string
	// refused are the clusters whose request the server refuses, by key: what Butler holds
	// after the change is the base's version (nil for a create).
	refused map[string]*v1alpha1.TenantCluster
	// decoded are the Teams of both trees as the loader decoded them, copied before any
	// rule ran: the server compares a Team's limits as freshly decoded (reflect.DeepEqual,
	// where "1Gi" and "1024Mi" differ), and printing a resource.Quantity caches its
	// canonical spelling, which the replay's messages do.
	decoded map[*manifest.Object]*v1alpha1.Team
}

func derefs[T any](ps []*T) []T {
	out := make([]T, 0, len(ps))
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

// demoteUnchanged makes the findings of objects the change leaves as they are warnings:
// the change did not bring them, and the server does not re-judge an object nobody sends.
func (c *change) demoteUnchanged(fs []Finding) []Finding {
	for i := range fs {
		f := &fs[i]
		if f.Kind == "" || f.Severity != SeverityError {
			continue
		}
		if c.unchangedObject(f) {
			f.Severity = SeverityWarning
		}
	}
	return fs
}

// clusters judges the cluster requests: creates (counted against the baseline and the
// change's earlier accepted creates), updates and deletes, each first for the author.
// Updates are judged first: a refused update leaves its cluster as the base has it, and
// that is what the creates meet.
func (c *change) clusters(added, changed, deleted []*cluster) []Finding {
	updates := c.updates(changed)
	for key, old := range c.refused { // updates only so far: none is nil
		ns := old.Namespace
		for i := range c.baseline[ns] {
			if c.baseline[ns][i].Namespace+"/"+c.baseline[ns][i].Name == key {
				c.baseline[ns][i] = *old
			}
		}
	}
	fs := append(c.creates(added), updates...)
	for _, bc := range deleted {
		f, _ := c.clusterRole(bc, "delete", bc.c.Labels[v1alpha1.LabelEnvironment])
		fs = append(fs, f...)
	}
	return fs
}

func (c *change) creates(added []*cluster) []Finding {
	var fs []Finding
	created, all := map[string][]v1alpha1.TenantCluster{}, map[string][]v1alpha1.TenantCluster{}
	for _, hc := range added {
		all[hc.c.Namespace] = append(all[hc.c.Namespace], *hc.c)
	}
	for _, hc := range added {
		tc := hc.c
		f, ok := c.clusterRole(hc, "create", tc.Labels[v1alpha1.LabelEnvironment])
		fs = append(fs, f...)
		siblings := append(append([]v1alpha1.TenantCluster(nil), c.baseline[tc.Namespace]...), created[tc.Namespace]...)
		req := policy.ClusterRequest{Operation: policy.Create, Cluster: tc, Siblings: siblings, Username: c.applier.Username}
		found, allowed := c.admitBoth(hc.obj, req)
		for i := range found {
			if found[i].Rule == policy.RuleMemberCreatorMismatch && c.opt.gitOps() && found[i].Note == "" {
				found[i].Note = fmt.Sprintf("the server sees the applier %q, not the author: in an environment with a per-member cap it admits only clusters whose creator-email is the applier", c.applier.Username)
			}
		}
		fs = append(fs, found...)
		if ok && allowed { // a refused create is not there for the next one to meet
			created[tc.Namespace] = append(created[tc.Namespace], *tc)
		}
		if !allowed {
			c.refused[hc.key()] = nil
		}
	}
	c.concurrency(all)
	return fs
}

func (c *change) updates(changed []*cluster) []Finding {
	var fs []Finding
	for _, hc := range changed {
		bc, _ := c.base.clusterByKey(hc.key())
		tc := hc.c
		f, _ := c.clusterRole(bc, "update", bc.c.Labels[v1alpha1.LabelEnvironment])
		for i := range f { // on the line of what the change edits, in head's file
			f[i].File, f[i].Field = hc.obj.Source.File, changedField(bc.c, hc.c)
			f[i].Line = hc.obj.Line(f[i].Field)
		}
		fs = append(fs, f...)
		fs = append(fs, c.migration(bc, hc)...)
		req := policy.ClusterRequest{Operation: policy.Update, Cluster: tc, Old: bc.c,
			Siblings: c.baseline[tc.Namespace], Username: c.applier.Username}
		found, allowed := c.admitBoth(hc.obj, req)
		fs = append(fs, found...)
		if !allowed {
			c.refused[hc.key()] = bc.c
		}
	}
	return fs
}

// concurrency notes the capped namespaces the change adds several clusters to: the server
// counts from a cache and may admit concurrent creates past a cap.
func (c *change) concurrency(added map[string][]v1alpha1.TenantCluster) {
	nss := make([]string, 0, len(added))
	for ns := range added {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		list := added[ns]
		if len(list) < 2 || !capped(c.head.team(list[0].TeamName()), c.head.provider(&list[0]), list) {
			continue
		}
		c.notes = append(c.notes, fmt.Sprintf("this change adds %d clusters to namespace %q, which has caps: the gate judged them one at a time, in name order, but Butler counts from a cache and may admit creates applied at the same moment past a cap", len(list), ns))
	}
}

// capped reports whether a cap counts the namespace's clusters: the team's, an
// environment's, the ProviderConfig's.
func capped(team *v1alpha1.Team, pc *v1alpha1.ProviderConfig, list []v1alpha1.TenantCluster) bool {
	if pc != nil && pc.Spec.Limits != nil && (pc.Spec.Limits.MaxClustersPerTeam != nil || pc.Spec.Limits.MaxNodesPerTeam != nil) {
		return true
	}
	if team == nil {
		return false
	}
	if l := team.Spec.ResourceLimits; l != nil && (l.MaxClusters != nil || l.MaxTotalNodes != nil ||
		computeSet(l.MaxCPUCores) || computeSet(l.MaxMemory) || computeSet(l.MaxStorage)) {
		return true
	}
	for _, tc := range list {
		if e := policy.EnvironmentOf(team, tc.Labels[v1alpha1.LabelEnvironment]); e != nil && e.Limits != nil &&
			(positive(e.Limits.MaxClusters) || positive(e.Limits.MaxClustersPerMember)) {
			return true
		}
	}
	return false
}

func positive(p *int32) bool { return p != nil && *p > 0 }

// dropRepeated drops the replay's notes on a changed cluster that its request's own
// findings say already, by the same rule (the CPU quota's update warning, for one).
func dropRepeated(fs, judged []Finding) []Finding {
	type key struct{ ns, name, rule string }
	said := map[key]bool{}
	for _, f := range judged {
		if f.Kind == "TenantCluster" {
			said[key{f.Namespace, f.Name, f.Rule}] = true
		}
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Note == "" || !said[key{f.Namespace, f.Name, f.Rule}] {
			out = append(out, f)
		}
	}
	return out
}

// changedField is the path of the first thing an update of a cluster edits, for the line
// a finding about the update points at.
func changedField(old, cur *v1alpha1.TenantCluster) string {
	o, n := old.Spec, cur.Spec
	switch {
	case old.Labels[v1alpha1.LabelEnvironment] != cur.Labels[v1alpha1.LabelEnvironment]:
		return "metadata.labels[" + v1alpha1.LabelEnvironment + "]"
	case o.Workers.Replicas != n.Workers.Replicas:
		return "spec.workers.replicas"
	case !equality.Semantic.DeepEqual(o.Workers, n.Workers):
		return "spec.workers"
	case o.KubernetesVersion != n.KubernetesVersion:
		return "spec.kubernetesVersion"
	case !equality.Semantic.DeepEqual(o.ProviderConfigRef, n.ProviderConfigRef):
		return "spec.providerConfigRef"
	case !equality.Semantic.DeepEqual(o, n):
		return "spec"
	case !equality.Semantic.DeepEqual(old.Annotations, cur.Annotations):
		return "metadata.annotations"
	}
	return "metadata.labels"
}
