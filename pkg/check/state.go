package check

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// tree is a loaded set with what the checks look up in it.
type tree struct {
	set *manifest.Set
	// complete declares the tree the whole platform: a reference it cannot resolve does
	// not exist (an error), rather than lives elsewhere (not judged, a warning).
	complete bool

	objOf    map[runtime.Object]*manifest.Object
	clusters []*cluster // sorted by namespace, name
	byIdx    []*cluster // by index in the set's Clusters
	policies []v1alpha1.ClusterCreationPolicy
	// teams and providers index the set's lookups, which scan every object, once.
	teams     map[string]*v1alpha1.Team
	providers map[string]*v1alpha1.ProviderConfig
	byName    map[[2]string]*manifest.Set // by kind and name, for find
	// siblings are the maps the tree's sibling values share (value).
	siblings manifest.SiblingMaps
}

// cluster is a TenantCluster of the tree: its counted fields (at) and the namespace it
// lives in (manifest.Cluster.Place), and once read whole (each, or readWhole for a
// change) its object: c is the set's object when the manifest names its namespace, else a
// copy of its struct with the namespace filled in; either way nothing writes to it.
type cluster struct {
	idx int // in the set's Clusters
	at  *manifest.Cluster
	ns  string
	obj *manifest.Object
	c   *v1alpha1.TenantCluster
}

func (c *cluster) key() string { return c.ns + "/" + c.at.Name }

// value is c, a cluster of t, as a sibling in a count of its namespace: its counted
// fields, the same whatever the Load kept of it.
func (t *tree) value(c *cluster) v1alpha1.TenantCluster { return c.at.Sibling(c.ns, &t.siblings) }

// newTree indexes a set. Its clusters are known by their counted fields; each is read
// whole when judged (each), or all at once for a change (readWhole).
func newTree(set *manifest.Set, complete bool) *tree {
	t := &tree{set: set, complete: complete, objOf: map[runtime.Object]*manifest.Object{},
		teams: map[string]*v1alpha1.Team{}, providers: map[string]*v1alpha1.ProviderConfig{}}
	for i := range set.Objects {
		o := &set.Objects[i]
		t.objOf[o.Obj] = o
	}
	for i := range set.Clusters.Len() {
		at := set.Clusters.At(i)
		t.clusters = append(t.clusters, &cluster{idx: i, at: at, ns: at.Place(t.team(at.Team))})
	}
	t.byIdx = append([]*cluster(nil), t.clusters...)
	sort.SliceStable(t.clusters, func(i, j int) bool { return t.clusters[i].key() < t.clusters[j].key() })
	for _, p := range set.ClusterCreationPolicies() {
		t.policies = append(t.policies, *p)
	}
	return t
}

// unreadable is the finding on a cluster that could not be read again.
func unreadable(c *cluster, err error) Finding {
	return Finding{File: c.at.Source.File, Line: c.at.Source.Line, Kind: v1alpha1.KindTenantCluster, Namespace: c.at.Namespace, Name: c.at.Name,
		Message: err.Error(), Rule: RuleDecode, Severity: SeverityError}
}

// whole is c with its object o.
func (c *cluster) whole(o manifest.Object) *cluster {
	tc := o.Obj.(*v1alpha1.TenantCluster)
	if tc.Namespace != c.ns {
		cp := *tc
		cp.Namespace = c.ns
		tc = &cp
	}
	return &cluster{idx: c.idx, at: c.at, ns: c.ns, obj: &o, c: tc}
}

// each calls fn with each cluster of order and the cluster whole (w), or the error that
// kept it from being read (the set's Clusters read ahead on every core); one read whole
// already is not read again.
func (t *tree) each(order []*cluster, fn func(c, w *cluster, err error)) {
	idx := make([]int, 0, len(order))
	for _, c := range order {
		if c.c == nil {
			idx = append(idx, c.idx)
		}
	}
	k := 0
	held := func() {
		for ; k < len(order) && order[k].c != nil; k++ {
			fn(order[k], order[k], nil)
		}
	}
	held()
	_ = t.set.Clusters.EachOf(idx, func(_ int, o manifest.Object, err error) error {
		c := order[k]
		k++
		if err != nil {
			fn(c, nil, err)
		} else {
			fn(c, c.whole(o), nil)
		}
		held()
		return nil
	})
}

// readWhole reads the clusters of list whole and keeps them (a change's added, deleted and
// edited clusters, which it compares and judges whole); the findings of those that could
// not be read again.
func (t *tree) readWhole(list []*cluster) []Finding {
	var unread []Finding
	t.each(list, func(c, w *cluster, err error) {
		if err != nil {
			unread = append(unread, unreadable(c, err))
			return
		}
		c.obj, c.c = w.obj, w.c
	})
	return unread
}

// object is c's object as written: the one read whole already (readWhole), else read now.
func (t *tree) object(c *cluster) (manifest.Object, error) {
	if c.obj != nil {
		return *c.obj, nil
	}
	return t.set.Clusters.Get(c.idx)
}

// findCluster is the cluster of that namespace (as written) and name, as Set.Find finds
// an object (Clusters.Find), or nil.
func (t *tree) findCluster(namespace, name string) *cluster {
	if i := t.set.Clusters.Find(namespace, name); i >= 0 {
		return t.byIdx[i]
	}
	return nil
}

// find is t.set.Find by an index: a tree with many findings asks for many objects.
func (t *tree) find(kind, namespace, name string) *manifest.Object {
	if t.byName == nil {
		t.byName = map[[2]string]*manifest.Set{}
		for i := range t.set.Objects {
			o := t.set.Objects[i]
			k := [2]string{o.Kind, o.Name}
			if t.byName[k] == nil {
				t.byName[k] = &manifest.Set{}
			}
			t.byName[k].Objects = append(t.byName[k].Objects, o)
		}
	}
	same := t.byName[[2]string{kind, name}]
	if same == nil {
		return nil
	}
	return same.Find(kind, namespace, name)
}

func (t *tree) team(name string) *v1alpha1.Team {
	if name == "" {
		return nil
	}
	team, ok := t.teams[name]
	if !ok {
		team = t.set.Team(name)
		t.teams[name] = team
	}
	return team
}

func (t *tree) provider(c *v1alpha1.TenantCluster) *v1alpha1.ProviderConfig {
	ref := c.Spec.ProviderConfigRef
	if ref == nil {
		return nil
	}
	key := ref.Namespace + "/" + ref.Name
	pc, ok := t.providers[key]
	if !ok {
		pc = t.set.ProviderConfig(ref.Namespace, ref.Name)
		t.providers[key] = pc
	}
	return pc
}

// objects lists every object of the tree, its clusters included.
func (t *tree) objects() []Object {
	out := make([]Object, 0, len(t.set.Objects)+t.set.Clusters.Len())
	for o := range t.set.Refs() {
		if o.Source.File == LiveFile {
			continue
		}
		out = append(out, Object{File: o.Source.File, Line: o.Source.Line, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
	}
	return out
}

// State checks a tree on its own: every object against the rules that do not depend on
// who asks, and every aggregate cap. Only o.Complete is read.
func State(set *manifest.Set, o Options) *Report {
	t := newTree(set, o.Complete)
	r := &Report{Mode: "state", Objects: t.objects()}
	// Each cluster is judged once, its references with its request, so that a cluster
	// the Load kept as a record is read again once.
	var refs []Finding
	replayed, refused := t.replay(t.clusters, false, false, func(c *cluster) { refs = append(refs, t.clusterRefs(c)...) })
	var unread []Finding
	for _, f := range replayed {
		if f.Rule == RuleDecode {
			unread = append(unread, f)
		}
	}
	if len(unread) > 0 {
		// A record that could not be read again (its file changed or went away during the
		// check) leaves the tree unjudged, as a file that does not decode does: its error
		// alone, not findings and usage counted with a record that no longer stands for it.
		return Unreadable(unread)
	}
	r.Findings = append(append(t.kindRules(), refs...), replayed...)
	r.Usage = usage(nil, t, refused, nil)
	r.finish()
	return r
}

// kindRules are the rules on each object alone but the clusters' (clusterRefs).
func (t *tree) kindRules() []Finding {
	var fs []Finding
	for _, team := range t.set.Teams() {
		obj := t.objOf[team]
		if d := policy.AdmitTeam(policy.Create, nil, team, policy.Identity{}, true); d != nil {
			fs = append(fs, findingAt(obj, "", "Forbidden", d.Message, d.Rule, SeverityError))
		}
		for _, e := range policy.DuplicateEnvironments(team) {
			fs = append(fs, findingAt(obj, e.Field, string(e.Type), e.Error(), "team-environments", SeverityError))
		}
	}
	for _, pc := range t.set.ProviderConfigs() {
		obj := t.objOf[pc]
		for _, e := range policy.ValidateProviderConfigWebhook(pc) {
			fs = append(fs, findingAt(obj, e.Field, string(e.Type), e.Error(), "provider-config", SeverityError))
		}
		if s := pc.Spec.Scope; s != nil && s.TeamRef != nil && t.team(s.TeamRef.Name) == nil {
			fs = append(fs, t.missing(obj, "spec.scope.teamRef.name", "Team", s.TeamRef.Name, "the scope's team"))
		}
	}
	for _, p := range t.set.ClusterCreationPolicies() {
		d := policy.AdmitPolicy(policy.PolicyRequest{Policy: p, Team: t.team, Others: t.policies})
		fs = append(fs, decisionFindings(t.objOf[p], d)...)
	}
	return fs
}

// missing is the finding for a reference the tree does not resolve. Without --complete the
// object may live on the platform outside the tree, so what needs it is not judged (a
// warning naming it); with --complete it does not exist (an error). Either way in the
// gate's words: the server refuses some missing references and skips others.
func (t *tree) missing(obj *manifest.Object, path, kind, name, needs string) Finding {
	if t.complete {
		msg := fmt.Sprintf("%s: %s %q does not exist: it is not in the manifests, which --complete declares the whole platform", path, kind, name)
		return findingAt(obj, path, "NotFound", msg, RuleMissingReference, SeverityError)
	}
	msg := fmt.Sprintf("not judged: %s %q is not in the manifests, so the rules that need %s were not applied; give --context to read it from the platform, or --complete if the manifests are the whole platform",
		kind, name, needs)
	return findingAt(obj, path, "", msg, RuleNotJudged, SeverityWarning)
}

// clusterRefs are a cluster's references and the migration annotation.
func (t *tree) clusterRefs(c *cluster) []Finding {
	var fs []Finding
	switch ref := c.c.Spec.TeamRef; {
	case ref == nil || ref.Name == "":
		fs = append(fs, findingAt(c.obj, "spec.teamRef", "", "spec.teamRef is not set: the server skips the environment and team checks for this cluster",
			RuleTeamRefUnset, SeverityWarning))
	case t.team(ref.Name) == nil:
		fs = append(fs, t.missing(c.obj, "spec.teamRef.name", "Team", ref.Name, "the team (environments, team limits)"))
	}
	// Complete, a missing ProviderConfig is the server's own refusal (provider-not-found).
	if ref := c.c.Spec.ProviderConfigRef; ref != nil && !t.complete && t.provider(c.c) == nil {
		fs = append(fs, t.missing(c.obj, "spec.providerConfigRef.name", "ProviderConfig", ref.Name, "the ProviderConfig (its scope and limits, ClusterCreationPolicies, team limits)"))
	}
	if v, ok := c.c.Annotations[v1alpha1.AnnotationMigration]; ok {
		p := field.NewPath("metadata", "annotations").Key(v1alpha1.AnnotationMigration).String()
		msg := fmt.Sprintf("%s: set to %q: it lets any later change move the cluster between environments past the server's guard; once the move is applied, remove it in a follow-up change (running the same `butleradm env migrate` again removes it)", p, v)
		fs = append(fs, findingAt(c.obj, p, "", msg, RuleMigrationAnnotation, SeverityWarning))
	}
	return fs
}

// createRequest is the request the webhook would build for a create of tc.
func (t *tree) createRequest(tc *v1alpha1.TenantCluster, siblings []v1alpha1.TenantCluster, user string) policy.ClusterRequest {
	team := t.team(tc.TeamName())
	req := policy.ClusterRequest{Operation: policy.Create, Cluster: tc, Team: team, Siblings: siblings,
		ProviderConfig: t.provider(tc), Username: user, Policies: t.policies}
	if team != nil {
		req.Addons = defaultAddons(team, tc.Labels[v1alpha1.LabelEnvironment])
	}
	return req
}

// defaultAddons are the addons the controller installs on a new cluster (the webhook's
// list): the team's and its environment's defaults.
func defaultAddons(team *v1alpha1.Team, env string) []string {
	d, err := policy.ResolveDefaults(team, env, policy.Explicit{KubernetesVersion: "v0.0.0"})
	if err != nil {
		return nil
	}
	return d.Addons
}
