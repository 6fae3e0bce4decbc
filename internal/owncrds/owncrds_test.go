package owncrds

import "testing"

// Every embedded CRD decodes, with a name and a version the server stores.
func TestAll(t *testing.T) {
	crds, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) < 10 {
		t.Fatalf("%d CRDs, want Butler's ten at least", len(crds))
	}
	for _, c := range crds {
		stored := false
		for _, v := range c.Spec.Versions {
			stored = stored || v.Storage
		}
		if c.Name == "" || !stored {
			t.Errorf("CRD %q: no name or no stored version", c.Name)
		}
	}
}
