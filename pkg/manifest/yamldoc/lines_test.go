package yamldoc

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A packed line index answers as the pairs it was given: the last line set for a path,
// nothing for a path not set, lines far from the first and paths far apart included.
func TestLineIndexPacked(t *testing.T) {
	tab := NewPathTable()
	var ids []int32
	for i := range 400 {
		name := "f" + strconv.Itoa(i)
		ids = append(ids, tab.ID(PathStep{Parent: NoPath, Kind: StepChild, Name: name}, field.NewPath(name)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		l := NewLineIndex(tab)
		want := map[int32]int{}
		for range r.IntN(120) {
			id := ids[r.IntN(len(ids))]
			line := 1 + r.IntN(5) + r.IntN(2)*r.IntN(1<<20)
			l.Add(id, line)
			want[id] = line
		}
		l.Done()
		for i, id := range ids {
			got, ok := l.Get("f" + strconv.Itoa(i))
			if w, set := want[id]; ok != set || got != w {
				t.Fatalf("round %d, path f%d: got %d, %v; want %d, %v", round, i, got, ok, w, set)
			}
		}
	}
	if _, ok := (*LineIndex)(nil).Get("f1"); ok {
		t.Error("a nil index has a line")
	}
}
