package manifest

import (
	"math/rand/v2"
	"strconv"
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
