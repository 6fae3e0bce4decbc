package manifest

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A packed line index answers as the pairs it was given: the last line set for a path,
// nothing for a path not set, lines far from the first and paths far apart included.
func TestLineIndexPacked(t *testing.T) {
	tab := newPathTable()
	var ids []int32
	for i := range 400 {
		name := "f" + strconv.Itoa(i)
		ids = append(ids, tab.id(pathStep{parent: noPath, kind: stepChild, name: name}, field.NewPath(name)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		l := &lineIndex{tab: tab}
		want := map[int32]int{}
		for range r.IntN(120) {
			id := ids[r.IntN(len(ids))]
			line := 1 + r.IntN(5) + r.IntN(2)*r.IntN(1<<20)
			l.add(id, line)
			want[id] = line
		}
		l.done()
		for i, id := range ids {
			got, ok := l.get("f" + strconv.Itoa(i))
			if w, set := want[id]; ok != set || got != w {
				t.Fatalf("round %d, path f%d: got %d, %v; want %d, %v", round, i, got, ok, w, set)
			}
		}
	}
	if _, ok := (*lineIndex)(nil).get("f1"); ok {
		t.Error("a nil index has a line")
	}
}

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
