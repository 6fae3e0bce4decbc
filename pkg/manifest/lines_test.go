package manifest

import (
	"errors"
	"strings"
	"testing"
)

// Findings and Object.Line name the lines of fields as written, once the index is packed:
// in a later document of a file, past a long comment (lines far from the object's first)
// and the nearest written parent for a field that is not written.
func TestLinesOfLoadedObjects(t *testing.T) {
	pad := strings.Repeat("# padding\n", 300)
	doc := "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: a\n" + pad +
		"spec:\n  email: a@example.com\n"
	bad := "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: b\n" + pad +
		"spec:\n  email: not-an-address\n"
	doc2 := strings.Replace(doc, "name: a", "name: a2", 1)
	dir := writeFiles(t, map[string]string{"u.yaml": doc + "---\n" + doc2})
	set, err := Load([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Document 1: spec on line 305, email on 306; document 2 starts on line 308 ("---" on 307).
	if got := set.Objects[0].Line("spec.email"); got != 306 {
		t.Errorf("document 1, spec.email on line %d, want 306", got)
	}
	if got := set.Objects[1].Line("spec.email"); got != 306+307 {
		t.Errorf("document 2, spec.email on line %d, want %d", got, 306+307)
	}
	if got := set.Objects[1].Line("metadata.name"); got != 307+4 {
		t.Errorf("document 2, metadata.name on line %d, want %d", got, 307+4)
	}
	if got := set.Objects[1].Line("spec.nothing"); got != 307+305 {
		t.Errorf("a field not written: line %d, want its parent's, %d", got, 307+305)
	}
	dir = writeFiles(t, map[string]string{"u.yaml": doc + "---\n" + bad})
	_, err = Load([]string{dir}, nil)
	var de *DecodeError
	if !errors.As(err, &de) || de.Field != "spec.email" || de.Line != 306+307 {
		t.Fatalf("finding %v, want spec.email on line %d", err, 306+307)
	}
}
