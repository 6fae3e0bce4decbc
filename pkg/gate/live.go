package gate

import "github.com/butlerdotdev/butler-toolkit/pkg/manifest"

// addLive adds to each set the live objects it does not hold (by kind, namespace and
// name): the tree wins where it has the object, since it is what will be applied. The same
// object goes into base and head, so the change leaves it as it is.
func addLive(objs []manifest.Object, sets ...*manifest.Set) {
	if len(objs) == 0 {
		return // without --context: no index of every set's objects for nothing
	}
	for _, s := range sets {
		if s == nil {
			continue
		}
		// A tree object without a namespace stands for its kind and name in any namespace
		// (kustomize fills it in), as Set.Find matches it.
		have, loose := map[[3]string]bool{}, map[[2]string]bool{}
		for o := range s.Refs() { // its clusters too
			have[[3]string{o.Kind, o.Namespace, o.Name}] = true
			if o.Namespace == "" {
				loose[[2]string{o.Kind, o.Name}] = true
			}
		}
		var add []manifest.Object
		for _, o := range objs {
			if have[[3]string{o.Kind, o.Namespace, o.Name}] || have[[3]string{o.Kind, "", o.Name}] || loose[[2]string{o.Kind, o.Name}] {
				continue
			}
			add = append(add, o)
		}
		s.Merge(manifest.NewSet(add)) // a TenantCluster among the set's Clusters
	}
}
