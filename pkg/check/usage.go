package check

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Usage is one capped figure of a team or one of its environments, before and after the
// change (Before is empty for a state check), against its cap as the change leaves it.
// After is what Butler holds once the change is applied: a request the server refuses
// leaves its cluster as the base has it (a refused create is not there).
type Usage struct {
	Team        string `json:"team"`
	Environment string `json:"environment,omitempty"`
	Cap         string `json:"cap"`
	Limit       string `json:"limit"`
	Before      string `json:"before,omitempty"`
	After       string `json:"after"`
	Over        bool   `json:"over"`
	// Requested is the limit a change of the Team asked for when the change is refused:
	// Limit is then the one Butler keeps.
	Requested string `json:"requested,omitempty"`
	// Target is the management cluster, when the repository reconciles into several.
	Target string `json:"target,omitempty"`
}

// usage lists the capped figures of every team of head, with before read from base and
// the refused requests' clusters as the base has them; a team whose change is refused
// (kept, by name: the Team Butler keeps) is counted against the limits it keeps, each
// with the one the change asked for.
func usage(base, head *tree, refused map[string]*v1alpha1.TenantCluster, kept map[string]*v1alpha1.Team) []Usage {
	var out []Usage
	for _, asked := range head.set.Teams() {
		team := asked
		if k := kept[asked.Name]; k != nil {
			team = k
		}
		first := len(out)
		ns := team.TeamNamespace()
		after := figuresOf(admitted(head.namespace(ns), refused), team)
		var before *figures
		if base != nil {
			b := figuresOf(base.namespace(ns), team)
			before = &b
		}
		add := func(env, cap, limit string, pick func(f *figures) string, cmp func(after, limit string) bool) {
			u := Usage{Team: team.Name, Environment: env, Cap: cap, Limit: limit, After: pick(&after)}
			if before != nil {
				u.Before = pick(before)
			}
			u.Over = cmp(u.After, limit)
			out = append(out, u)
		}
		if l := team.Spec.ResourceLimits; l != nil {
			if l.MaxClusters != nil {
				add("", "maxClusters", itoa(int64(*l.MaxClusters)), func(f *figures) string { return itoa(f.clusters) }, countOver)
			}
			if l.MaxTotalNodes != nil {
				add("", "maxTotalNodes", itoa(int64(*l.MaxTotalNodes)), func(f *figures) string { return itoa(f.nodes) }, countOver)
			}
			if computeSet(l.MaxCPUCores) {
				add("", "maxCPUCores", l.MaxCPUCores.String(), func(f *figures) string { return f.cpu.String() }, quantityOver)
			}
			if computeSet(l.MaxMemory) {
				add("", "maxMemory", l.MaxMemory.String(), func(f *figures) string { return f.memory.String() }, quantityOver)
			}
			if computeSet(l.MaxStorage) {
				add("", "maxStorage", l.MaxStorage.String(), func(f *figures) string { return f.storage.String() }, quantityOver)
			}
		}
		for i := range team.Spec.Environments {
			e := &team.Spec.Environments[i]
			if e.Limits == nil {
				continue
			}
			name := e.Name
			if positive(e.Limits.MaxClusters) {
				add(name, "maxClusters", itoa(int64(*e.Limits.MaxClusters)), func(f *figures) string { return itoa(f.env[name]) }, countOver)
			}
			if positive(e.Limits.MaxClustersPerMember) {
				// One row per owner with clusters there, before or after.
				owners := map[string]bool{}
				for _, f := range []*figures{&after, before} {
					if f != nil {
						for k := range f.owner[name] {
							owners[k] = true
						}
					}
				}
				for _, o := range sortedKeys(owners) {
					add(name, "maxClustersPerMember ("+o+")", itoa(int64(*e.Limits.MaxClustersPerMember)), func(f *figures) string { return itoa(f.owner[name][o]) }, countOver)
				}
			}
		}
		if team != asked {
			wanted := limitsOf(asked)
			for i := range out[first:] {
				u := &out[first+i]
				cap, _, _ := strings.Cut(u.Cap, " (")
				if l := wanted[[2]string{u.Environment, cap}]; l != u.Limit {
					u.Requested = l
				}
			}
		}
	}
	return out
}

// limitsOf are a Team's caps as usage shows them, by environment ("" for the team's own)
// and cap.
func limitsOf(team *v1alpha1.Team) map[[2]string]string {
	m := map[[2]string]string{}
	if l := team.Spec.ResourceLimits; l != nil {
		if l.MaxClusters != nil {
			m[[2]string{"", "maxClusters"}] = itoa(int64(*l.MaxClusters))
		}
		if l.MaxTotalNodes != nil {
			m[[2]string{"", "maxTotalNodes"}] = itoa(int64(*l.MaxTotalNodes))
		}
		for cap, q := range map[string]*resource.Quantity{"maxCPUCores": l.MaxCPUCores, "maxMemory": l.MaxMemory, "maxStorage": l.MaxStorage} {
			if computeSet(q) {
				m[[2]string{"", cap}] = q.String()
			}
		}
	}
	for _, e := range team.Spec.Environments {
		if e.Limits == nil {
			continue
		}
		if positive(e.Limits.MaxClusters) {
			m[[2]string{e.Name, "maxClusters"}] = itoa(int64(*e.Limits.MaxClusters))
		}
		if positive(e.Limits.MaxClustersPerMember) {
			m[[2]string{e.Name, "maxClustersPerMember"}] = itoa(int64(*e.Limits.MaxClustersPerMember))
		}
	}
	return m
}

// admitted is clusters as Butler holds them: refused creates dropped, refused updates as
// they were.
func admitted(clusters []v1alpha1.TenantCluster, refused map[string]*v1alpha1.TenantCluster) []v1alpha1.TenantCluster {
	if len(refused) == 0 {
		return clusters
	}
	out := clusters[:0:0]
	for i := range clusters {
		old, ok := refused[clusters[i].Namespace+"/"+clusters[i].Name]
		switch {
		case !ok:
			out = append(out, clusters[i])
		case old != nil:
			out = append(out, *old)
		}
	}
	return out
}

// figures are what a team's caps count in its namespace.
type figures struct {
	clusters, nodes      int64
	cpu, memory, storage resource.Quantity
	env                  map[string]int64
	owner                map[string]map[string]int64 // by environment, then owner e-mail
}

func figuresOf(clusters []v1alpha1.TenantCluster, team *v1alpha1.Team) figures {
	f := figures{env: map[string]int64{}, owner: map[string]map[string]int64{}}
	for i := range clusters {
		c := &clusters[i]
		w := c.Spec.Workers
		r := int64(w.Replicas)
		f.clusters++
		f.nodes += r
		f.cpu.Add(*resource.NewQuantity(int64(w.MachineTemplate.CPU)*r, resource.DecimalSI))
		m := w.MachineTemplate.Memory.DeepCopy()
		f.memory.Add(*resource.NewQuantity(m.Value()*r, resource.BinarySI))
		d := w.MachineTemplate.DiskSize.DeepCopy()
		f.storage.Add(*resource.NewQuantity(d.Value()*r, resource.BinarySI))
		for j := range team.Spec.Environments {
			env := team.Spec.Environments[j].Name
			if !policy.InEnvironment(c, env) {
				continue
			}
			f.env[env]++
			owner := c.Annotations[v1alpha1.AnnotationOwner]
			if owner == "" {
				owner = c.Annotations[v1alpha1.AnnotationCreatorEmail]
			}
			if owner = policy.NormalizeEmail(owner); owner != "" {
				if f.owner[env] == nil {
					f.owner[env] = map[string]int64{}
				}
				f.owner[env][owner]++
			}
		}
	}
	return f
}

func itoa(n int64) string { return resource.NewQuantity(n, resource.DecimalSI).String() }

func countOver(after, limit string) bool { return quantityOver(after, limit) }

func quantityOver(after, limit string) bool {
	a, err1 := resource.ParseQuantity(after)
	l, err2 := resource.ParseQuantity(limit)
	return err1 == nil && err2 == nil && a.Cmp(l) > 0
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
