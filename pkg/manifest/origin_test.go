package manifest

import "testing"

// TestOriginCoversFirst: a field's position is the origin that covers it (its own, or the
// nearest field above it), whatever order the origins were added in; an origin below the
// field answers only when none covers it, and none answers for the object itself.
func TestOriginCoversFirst(t *testing.T) {
	fields := map[string]int{"spec": 7, "spec.teamRef.name": 10, "spec.workers": 13, "spec.workers.replicas": 14, "metadata.name": 4}
	orders := [][]string{
		{"spec", "spec.teamRef.name", "spec.workers", "spec.workers.replicas", "metadata.name"},
		{"spec.workers.replicas", "metadata.name", "spec.teamRef.name", "spec.workers", "spec"},
	}
	for _, order := range orders {
		o := &Object{Source: Source{File: "t.yaml", Line: 1}}
		for _, f := range order {
			o.AddOrigin(FieldOrigin{Field: f, File: "t.yaml", Line: fields[f]})
		}
		for field, want := range map[string]int{"spec": 7, "spec.workers": 13, "spec.workers.machineTemplate.cpu": 13,
			"spec.teamRef": 7, "spec.workers.replicas": 14, "metadata": 4} {
			if _, got := o.Position(field); got != want {
				t.Errorf("origins added %v: %s at line %d, want %d", order, field, got, want)
			}
		}
		if _, ok := o.origin(""); ok {
			t.Errorf("origins added %v: the object itself has an origin", order)
		}
	}
}
