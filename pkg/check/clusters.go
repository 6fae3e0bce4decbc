package check

import (
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// A tree's clusters are sorted by key (namespace/name): looked up by key and by namespace
// with a search, not a pass over every cluster.

func contains(list []*cluster, c *cluster) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

func (t *tree) clusterAt(namespace, name string) *cluster {
	c, _ := t.clusterByKey(namespace + "/" + name)
	return c
}

func (t *tree) clusterByKey(key string) (*cluster, bool) {
	i := sort.Search(len(t.clusters), func(i int) bool { return t.clusters[i].key() >= key })
	if i < len(t.clusters) && t.clusters[i].key() == key {
		return t.clusters[i], true
	}
	return nil, false
}

// keys are the clusters' keys, in their order.
func keys(clusters []*cluster) []string {
	out := make([]string, len(clusters))
	for i, c := range clusters {
		out[i] = c.key()
	}
	return out
}

// namespace is a copy of the tree's clusters in ns, in order.
func (t *tree) namespace(ns string) []v1alpha1.TenantCluster {
	in := t.inNamespace(ns)
	if len(in) == 0 {
		return nil
	}
	out := make([]v1alpha1.TenantCluster, len(in))
	for i, c := range in {
		out[i] = t.value(c)
	}
	return out
}

// inNamespace is the tree's clusters in ns, in order: they are among the keys that start
// with "ns/", one run of the sorted clusters, found without a pass over every cluster.
func (t *tree) inNamespace(ns string) []*cluster {
	prefix := ns + "/"
	i := sort.Search(len(t.clusters), func(i int) bool { return t.clusters[i].key() >= prefix })
	j := i
	for j < len(t.clusters) && strings.HasPrefix(t.clusters[j].key(), prefix) {
		j++
	}
	run := t.clusters[i:j]
	for _, c := range run {
		if c.ns != ns { // a namespace "ns/x", which no valid manifest has
			var out []*cluster
			for _, c := range run {
				if c.ns == ns {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return run
}
