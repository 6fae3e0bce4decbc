package check

import (
	"math"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// replay admits every cluster as a create, in order, each counted against the ones before
// it in its namespace, as its creator: a tree past a cap is refused at the first cluster
// past it, with the server's message. With existing false (a state check: every cluster is
// a create), a refused cluster is not created, so it counts toward no cap: it is returned
// in refused (by key) and the clusters after it are judged without it. With existing true
// (a change check's clusters, already on the platform), every cluster counts.
//
// Counting every earlier sibling for every cluster is quadratic in a namespace's size, so
// a running tally of each namespace decides first whether any cap is within reach; only
// then does the cluster get its siblings (and the server's exact figures). Without a cap
// in reach the siblings cannot change the decision, which is then taken without them. The
// tally over-counts rather than under-counts (environment names folded more widely than
// the server folds them, a limit reached counts as in reach). full skips the tally, for
// the test that holds the two ways to the same findings.
//
// The siblings are copies of the clusters' structs (policy takes them as values), made
// only for a namespace where a cap comes within reach, and then once each: a namespace far
// from its caps holds pointers alone. A cluster is read whole for the time its own request
// is judged (each, when set, sees it whole first; the set's Clusters read ahead) and
// counts as a sibling by its counted fields, whatever the Load kept of it.
func (t *tree) replay(order []*cluster, full, existing bool, each func(*cluster)) (fs []Finding, refused map[string]*v1alpha1.TenantCluster) {
	byNS := map[string][]*cluster{}                 // every earlier cluster, by namespace
	copied := map[string][]v1alpha1.TenantCluster{} // the first of them, as values
	tallies := map[string]*tally{}
	t.each(order, func(c, wc *cluster, err error) {
		ta := tallies[c.ns]
		if ta == nil {
			ta = &tally{env: map[string]int64{}, owner: map[string]int64{}}
			tallies[c.ns] = ta
		}
		if err != nil {
			fs = append(fs, unreadable(c, err))
			sib := t.value(c)
			byNS[c.ns] = append(byNS[c.ns], c)
			ta.add(&sib)
			return
		}
		if each != nil {
			each(wc)
		}
		tc := wc.c
		req := t.createRequest(tc, nil, tc.Annotations[v1alpha1.AnnotationCreatorEmail])
		if full || ta.inReach(tc, req.Team, req.ProviderConfig) {
			sib := copied[c.ns]
			for _, p := range byNS[c.ns][len(sib):] {
				sib = append(sib, t.value(p))
			}
			copied[c.ns] = sib
			req.Siblings = sib
		}
		d := t.admit(req)
		fs = append(fs, decisionFindings(wc.obj, d)...)
		if !existing && !d.Allowed() {
			if refused == nil {
				refused = map[string]*v1alpha1.TenantCluster{}
			}
			refused[c.key()] = nil // a refused create: not there
			return
		}
		byNS[c.ns] = append(byNS[c.ns], c)
		ta.add(tc)
	})
	return fs, refused
}

// tally is what the caps count in one namespace so far.
type tally struct {
	clusters, nodes, cpuMilli, memory, storage int64
	env                                        map[string]int64 // by environment label, exact as the server counts
	owner                                      map[string]int64 // by label and owner e-mail (policy.EmailKey)
}

// fold is the key of an environment label: the label itself, as the server matches it.
func fold(env string) string { return env }

func ownerKey(env, email string) string { return fold(env) + "\x00" + policy.EmailKey(email) }

func (ta *tally) add(c *v1alpha1.TenantCluster) {
	w := c.Spec.Workers
	r := int64(w.Replicas)
	ta.clusters++
	ta.nodes += r
	ta.cpuMilli = satAdd(ta.cpuMilli, satMul(int64(w.MachineTemplate.CPU)*1000, r))
	ta.memory = satAdd(ta.memory, satMul(w.MachineTemplate.Memory.Value(), r))
	ta.storage = satAdd(ta.storage, satMul(w.MachineTemplate.DiskSize.Value(), r))
	if env := c.Labels[v1alpha1.LabelEnvironment]; env != "" {
		ta.env[fold(env)]++
		owner := c.Annotations[v1alpha1.AnnotationOwner]
		if owner == "" {
			owner = c.Annotations[v1alpha1.AnnotationCreatorEmail]
		}
		ta.owner[ownerKey(env, owner)]++
	}
}

// inReach reports whether creating c could reach any cap that counts the namespace's
// clusters: the team's, its environment's, the ProviderConfig's.
func (ta *tally) inReach(c *v1alpha1.TenantCluster, team *v1alpha1.Team, pc *v1alpha1.ProviderConfig) bool {
	w := c.Spec.Workers
	r := int64(w.Replicas)
	reach := func(used, req int64, limit *int32) bool { return limit != nil && used+req >= int64(*limit) }
	reachQ := func(used, req int64, limit *resource.Quantity, milli bool) bool {
		if limit == nil || limit.Sign() == 0 {
			return false
		}
		l := limit.Value()
		if milli {
			l = limit.MilliValue()
		}
		return satAdd(used, req) >= l-1 // a saturated sum is always in reach
	}
	if pc != nil && pc.Spec.Limits != nil {
		if reach(ta.clusters, 1, pc.Spec.Limits.MaxClustersPerTeam) || reach(ta.nodes, r, pc.Spec.Limits.MaxNodesPerTeam) {
			return true
		}
	}
	if team == nil {
		return false
	}
	if l := team.Spec.ResourceLimits; l != nil {
		if reach(ta.clusters, 1, l.MaxClusters) || reach(ta.nodes, r, l.MaxTotalNodes) ||
			reachQ(ta.cpuMilli, satMul(int64(w.MachineTemplate.CPU)*1000, r), l.MaxCPUCores, true) ||
			reachQ(ta.memory, satMul(w.MachineTemplate.Memory.Value(), r), l.MaxMemory, false) ||
			reachQ(ta.storage, satMul(w.MachineTemplate.DiskSize.Value(), r), l.MaxStorage, false) {
			return true
		}
	}
	env := c.Labels[v1alpha1.LabelEnvironment]
	spec := policy.EnvironmentOf(team, env)
	if env == "" || spec == nil || spec.Limits == nil {
		return false
	}
	creator := c.Annotations[v1alpha1.AnnotationCreatorEmail]
	return reach(ta.env[fold(env)], 1, spec.Limits.MaxClusters) ||
		reach(ta.owner[ownerKey(env, creator)], 1, spec.Limits.MaxClustersPerMember)
}

// satAdd and satMul saturate at math.MaxInt64 (the inputs are not negative: the loader
// refuses negative sizes and replicas), so a huge tree is in reach, never wrapped around.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
