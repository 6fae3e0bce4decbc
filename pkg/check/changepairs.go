package check

import (
	"sort"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file pairs a change's clusters across base and head: what it adds, edits, deletes
// and leaves, and what the requests it makes meet.

// diffClusters splits head's clusters into added, changed (what the rules read: spec,
// labels, annotations, as the webhook compares) and unchanged, and lists base's deleted
// ones; each list sorted by namespace and name. Both trees' clusters are sorted by key, so
// one pass over the two pairs them (each with the first of its key on the other side, as
// clusterByKey finds it). A pair of one decoding or of equal documents is unchanged
// without reading it (manifest.Clusters.Same); the others, and the added and deleted
// clusters, are read whole (unread: the findings of those that could not be).
func (c *change) diffClusters() (added, changed, deleted []*cluster, unread []Finding) {
	hk, bk := keys(c.head.clusters), keys(c.base.clusters)
	var pairs [][2]*cluster // head's, base's: read whole, then compared
	j := 0
	for i, hc := range c.head.clusters {
		for j < len(bk) && bk[j] < hk[i] {
			j++
		}
		switch {
		case j == len(bk) || bk[j] != hk[i]:
			added = append(added, hc)
		case c.base.set.Clusters.Same(c.base.clusters[j].idx, &c.head.set.Clusters, hc.idx):
			c.unchanged = append(c.unchanged, hc)
		default:
			pairs = append(pairs, [2]*cluster{hc, c.base.clusters[j]})
		}
	}
	i := 0
	for j, bc := range c.base.clusters {
		for i < len(hk) && hk[i] < bk[j] {
			i++
		}
		if i == len(hk) || hk[i] != bk[j] {
			deleted = append(deleted, bc)
		}
	}
	readHead, readBase := append([]*cluster(nil), added...), append([]*cluster(nil), deleted...)
	for _, p := range pairs {
		readHead, readBase = append(readHead, p[0]), append(readBase, p[1])
	}
	unread = append(c.head.readWhole(readHead), c.base.readWhole(readBase)...)
	if len(unread) > 0 {
		return nil, nil, nil, unread
	}
	for _, p := range pairs {
		if sameCluster(p[1].c, p[0].c) {
			c.unchanged = append(c.unchanged, p[0])
		} else {
			changed = append(changed, p[0])
		}
	}
	sort.SliceStable(c.unchanged, func(i, j int) bool { return c.unchanged[i].key() < c.unchanged[j].key() })
	return added, changed, deleted, nil
}

// unreadableChange is the report of a change whose clusters could not all be read again.
func unreadableChange(unread []Finding) *Report {
	r := Unreadable(unread)
	r.Mode = "change"
	return r
}

// baselines are, per namespace the change creates or updates clusters in, the clusters
// those requests meet: head's clusters other than the creates (changed ones as changed),
// and the ones the change deletes, which Flux and Argo CD prune after they apply. Other
// namespaces are not asked for.
func (c *change) baselines(added, changed, deleted []*cluster) {
	c.baseline = map[string][]v1alpha1.TenantCluster{}
	need := map[string]bool{}
	for _, list := range [][]*cluster{added, changed} {
		for _, hc := range list {
			need[hc.c.Namespace] = true
		}
	}
	for ns := range need {
		for _, hc := range c.head.inNamespace(ns) {
			if !contains(added, hc) {
				c.baseline[ns] = append(c.baseline[ns], c.head.value(hc))
			}
		}
	}
	for _, bc := range deleted {
		if ns := bc.ns; need[ns] {
			c.baseline[ns] = append(c.baseline[ns], c.base.value(bc))
		}
	}
}

func sameCluster(a, b *v1alpha1.TenantCluster) bool {
	return equality.Semantic.DeepEqual(a.Spec, b.Spec) && equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations)
}

// unchangedObject reports whether the object of a finding is in both trees, the same.
func (c *change) unchangedObject(f *Finding) bool {
	if f.Kind == v1alpha1.KindTenantCluster {
		b, h := c.base.findCluster(f.Namespace, f.Name), c.head.findCluster(f.Namespace, f.Name)
		if b == nil || h == nil {
			return false
		}
		if c.base.set.Clusters.Same(b.idx, &c.head.set.Clusters, h.idx) {
			return true
		}
		bo, err1 := c.base.object(b)
		ho, err2 := c.head.object(h)
		return err1 == nil && err2 == nil && equality.Semantic.DeepEqual(bo.Obj, ho.Obj)
	}
	b, h := c.base.find(f.Kind, f.Namespace, f.Name), c.head.find(f.Kind, f.Namespace, f.Name)
	return b != nil && h != nil && (b.Obj == h.Obj || equality.Semantic.DeepEqual(b.Obj, h.Obj))
}
