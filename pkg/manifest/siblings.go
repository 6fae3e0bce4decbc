package manifest

import (
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file makes the siblings a count of a namespace reads: TenantClusters of counted
// fields alone.

// Sibling is a TenantCluster holding only the counted fields, in namespace: what a count
// of the namespace's clusters reads, the same whatever a Load kept of the cluster. Its
// labels, annotations and team reference come from shared, which gives them to every
// sibling of equal values: never write to them.
func (c *Cluster) Sibling(namespace string, shared *SiblingMaps) v1alpha1.TenantCluster {
	var tc v1alpha1.TenantCluster
	tc.Name, tc.Namespace = c.Name, namespace
	tc.Labels, tc.Annotations, tc.Spec.TeamRef = shared.of(c)
	w := &tc.Spec.Workers
	w.Replicas, w.MachineTemplate.CPU = c.Replicas, c.CPU
	if c.Memory != nil {
		w.MachineTemplate.Memory = c.Memory.DeepCopy()
	}
	if c.DiskSize != nil {
		w.MachineTemplate.DiskSize = c.DiskSize.DeepCopy()
	}
	return tc
}

// SiblingMaps holds the maps and references Sibling shares. A change check counts every
// cluster of both its trees, and two small maps a sibling were 14 MB of garbage at 10,000
// clusters; siblings of equal labels share one map. The zero value is ready; safe for
// concurrent use.
type SiblingMaps struct {
	mu     sync.Mutex
	labels map[string]map[string]string    // by environment
	annots map[[2]string]map[string]string // by owner and creator
	refs   map[string]*v1alpha1.LocalObjectReference
}

func (m *SiblingMaps) of(c *Cluster) (labels, annots map[string]string, ref *v1alpha1.LocalObjectReference) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c.Environment != "" {
		if labels = m.labels[c.Environment]; labels == nil {
			labels = map[string]string{v1alpha1.LabelEnvironment: c.Environment}
			m.labels = setIn(m.labels, c.Environment, labels)
		}
	}
	if key := [2]string{c.Owner, c.Creator}; key != [2]string{} {
		if annots = m.annots[key]; annots == nil {
			annots = map[string]string{}
			if c.Owner != "" {
				annots[v1alpha1.AnnotationOwner] = c.Owner
			}
			if c.Creator != "" {
				annots[v1alpha1.AnnotationCreatorEmail] = c.Creator
			}
			m.annots = setIn(m.annots, key, annots)
		}
	}
	if c.Team != "" {
		if ref = m.refs[c.Team]; ref == nil {
			ref = &v1alpha1.LocalObjectReference{Name: c.Team}
			m.refs = setIn(m.refs, c.Team, ref)
		}
	}
	return labels, annots, ref
}

// setIn sets m[k] = v, making m first when it is nil.
func setIn[K comparable, V any](m map[K]V, k K, v V) map[K]V {
	if m == nil {
		m = map[K]V{}
	}
	m[k] = v
	return m
}
