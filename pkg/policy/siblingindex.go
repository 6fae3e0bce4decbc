package policy

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// SiblingIndex stands for the TenantClusters of one namespace in ClusterRequest: the
// figures AdmitCluster counts over them (clusters, per environment, per environment and
// owner, worker nodes, CPU, memory and storage), kept up to date one cluster at a time, so
// a decision costs the same whatever the namespace holds. A webhook deciding from an
// informer cache keeps one per namespace.
//
// It compares as AdmitCluster's pass over Siblings does, with the same functions:
// environments by their exact label (InEnvironment), owners by OwnerKey (the key of
// EmailsEqual's strings.EqualFold, of bounded length). Where a sum cannot be kept as one
// int64 with one printed format (a fractional or negative quantity, an overflow, quantities
// of different formats whose printed total depends on the clusters' order), it hands
// AdmitCluster the clusters themselves instead, so the decision and its message are the
// same either way.
//
// A SiblingIndex is not safe for concurrent use; the clusters it holds are not copied and
// must not be changed after Set.
type SiblingIndex struct {
	byName map[string]*siblingEntry
	n      int64
	nodes  int64
	cpu    indexSum
	mem    indexSum
	disk   indexSum
	env    map[string]int64    // environment label -> clusters
	owned  map[[2]string]int64 // {environment key, OwnerKey(owner)} -> clusters
}

type siblingEntry struct {
	c          *v1alpha1.TenantCluster
	env, owner string // keys; env "" when the cluster has no environment label
	nodes      int64
	cpu        indexAddend
	mem, disk  indexAddend
}

// indexAddend is one cluster's share of a sum: exact is false when it cannot be kept in
// the int64 fast path (then the index answers with the clusters themselves).
type indexAddend struct {
	v      int64
	format resource.Format
	exact  bool
}

// indexSum is the int64 total of the exact addends, how many addends are not exact, and
// how many non-zero addends each format has (AdmitCluster prints a sum in the format of
// its first non-zero addend, so one format means the order does not matter).
type indexSum struct {
	v        int64
	approx   float64
	overflow int64 // addends not exact
	formats  map[resource.Format]int64
}

// NewSiblingIndex is an empty index.
func NewSiblingIndex() *SiblingIndex {
	return &SiblingIndex{
		byName: map[string]*siblingEntry{},
		env:    map[string]int64{},
		owned:  map[[2]string]int64{},
		cpu:    indexSum{formats: map[resource.Format]int64{}},
		mem:    indexSum{formats: map[resource.Format]int64{}},
		disk:   indexSum{formats: map[resource.Format]int64{}},
	}
}

// environmentKey is the key of an environment label: the label itself, since the server
// counts an environment's clusters by the exact label (InEnvironment).
func environmentKey(env string) string { return env }

func newSiblingEntry(c *v1alpha1.TenantCluster) *siblingEntry {
	e := &siblingEntry{c: c}
	if env := c.Labels[v1alpha1.LabelEnvironment]; env != "" {
		e.env = environmentKey(env)
		e.owner = OwnerKey(clusterOwner(c))
	}
	w := &c.Spec.Workers
	r := int64(w.Replicas)
	e.nodes = r
	// As siblings() adds them: CPU once as cpu×replicas, memory and disk replicas times.
	e.cpu = indexAddend{v: int64(w.MachineTemplate.CPU) * r, format: resource.DecimalSI, exact: true}
	if e.cpu.v < 0 {
		e.cpu.exact = false
	}
	e.mem = quantityAddend(w.MachineTemplate.Memory, r)
	e.disk = quantityAddend(w.MachineTemplate.DiskSize, r)
	return e
}

func quantityAddend(q resource.Quantity, r int64) indexAddend {
	if r <= 0 {
		return indexAddend{exact: true} // added no times
	}
	a, ok := exactInt64(q)
	if !ok || a < 0 {
		return indexAddend{}
	}
	p, ok := checkedMul64(a, r)
	if !ok {
		return indexAddend{}
	}
	return indexAddend{v: p, format: q.Format, exact: true}
}

func (s *indexSum) add(a indexAddend, sign int64) {
	if !a.exact {
		s.overflow += sign
		return
	}
	if a.v == 0 {
		return
	}
	s.formats[a.format] += sign
	if s.formats[a.format] == 0 {
		delete(s.formats, a.format)
	}
	// v wraps past the int64 range and comes back exactly (modular arithmetic); approx
	// tells whether the true total is out of range.
	s.v += sign * a.v
	s.approx += float64(sign) * float64(a.v)
}

// total is the sum without the addend ex (when exSet), as AdmitCluster's quantitySum
// would hold it; false when the fast path cannot say.
func (s *indexSum) total(ex indexAddend, exSet bool, initial resource.Format) (quantitySum, bool) {
	overflow, v, approx := s.overflow, s.v, s.approx
	skip := exSet && ex.exact && ex.v != 0
	if exSet && !ex.exact {
		overflow--
	}
	if skip {
		v -= ex.v
		approx -= float64(ex.v)
	}
	formats := 0
	var only resource.Format
	for f, n := range s.formats {
		if skip && f == ex.format {
			n--
		}
		if n > 0 {
			formats++
			only = f
		}
	}
	if overflow != 0 || formats > 1 || v < 0 || approx > 1<<62 {
		return quantitySum{}, false
	}
	if formats == 0 {
		return newQuantitySum(initial), v == 0
	}
	return quantitySum{format: only, v: v}, true
}

// Set adds c, or replaces the cluster of that name.
func (x *SiblingIndex) Set(c *v1alpha1.TenantCluster) {
	x.Delete(c.Name)
	e := newSiblingEntry(c)
	x.byName[c.Name] = e
	x.apply(e, 1)
}

// Delete removes the cluster named name, if held.
func (x *SiblingIndex) Delete(name string) {
	if e, ok := x.byName[name]; ok {
		delete(x.byName, name)
		x.apply(e, -1)
	}
}

// Get is the cluster named name, or nil.
func (x *SiblingIndex) Get(name string) *v1alpha1.TenantCluster {
	if e, ok := x.byName[name]; ok {
		return e.c
	}
	return nil
}

// Len is the number of clusters held.
func (x *SiblingIndex) Len() int { return len(x.byName) }

// Clusters are the clusters held, by name (the order of a list from the API server).
func (x *SiblingIndex) Clusters() []v1alpha1.TenantCluster {
	out := make([]v1alpha1.TenantCluster, 0, len(x.byName))
	for _, e := range x.byName {
		out = append(out, *e.c)
	}
	slices.SortFunc(out, func(a, b v1alpha1.TenantCluster) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (x *SiblingIndex) apply(e *siblingEntry, sign int64) {
	x.n += sign
	x.nodes += sign * e.nodes
	x.cpu.add(e.cpu, sign)
	x.mem.add(e.mem, sign)
	x.disk.add(e.disk, sign)
	if e.env != "" {
		x.env[e.env] += sign
		if x.env[e.env] == 0 {
			delete(x.env, e.env)
		}
		k := [2]string{e.env, e.owner}
		x.owned[k] += sign
		if x.owned[k] == 0 {
			delete(x.owned, k)
		}
	}
}

// stats are the figures of siblingStats for a cluster named self in environment env
// created by creator; false when only the clusters themselves can say.
func (x *SiblingIndex) stats(self, env, creator string) (siblingStats, bool) {
	var st siblingStats
	ex, exSet := x.byName[self]
	var exCPU, exMem, exDisk indexAddend
	if exSet {
		exCPU, exMem, exDisk = ex.cpu, ex.mem, ex.disk
	}
	var ok1, ok2, ok3 bool
	st.cpu, ok1 = x.cpu.total(exCPU, exSet, resource.DecimalSI)
	st.mem, ok2 = x.mem.total(exMem, exSet, resource.BinarySI)
	st.disk, ok3 = x.disk.total(exDisk, exSet, resource.BinarySI)
	if !ok1 || !ok2 || !ok3 {
		return siblingStats{}, false
	}
	st.existing, st.nodes = x.n, x.nodes
	if exSet {
		st.existing--
		st.nodes -= ex.nodes
	}
	if env != "" {
		k := environmentKey(env)
		st.sameEnv = x.env[k]
		if exSet && ex.env == k {
			st.sameEnv--
		}
		if creator != "" {
			o := [2]string{k, OwnerKey(creator)}
			st.owned = x.owned[o]
			if exSet && ex.env == k && ex.owner == o[1] {
				st.owned--
			}
		}
	}
	return st, true
}
