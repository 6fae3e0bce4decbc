package yamldoc

import (
	"encoding/binary"
	"slices"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Where each field of an object was written. A Load numbers the field paths it meets
// (PathTable) and each object keeps (path number, line) pairs (LineIndex): the objects of
// a tree share a few hundred paths, and a map of path strings per object cost more memory
// than the objects themselves.

// PathStep is one step down a field path, as field.Path takes it.
type PathStep struct {
	Parent int32 // the path it extends; NoPath at the top
	Kind   uint8 // StepChild, StepKey or StepIndex
	Name   string
	Index  int
}

// The kinds of PathStep: a field, a map key, a list index.
const (
	StepChild uint8 = iota
	StepKey
	StepIndex
)

// NoPath is the parent of a top-level step.
const NoPath int32 = -1

// PathTable numbers the field paths of one Load; its workers share it. It also keeps one
// field.Path per path (field.Path is immutable), so that decoding does not build a new one
// for every node of every object.
type PathTable struct {
	mu    sync.Mutex
	steps map[PathStep]int32
	byStr map[string]int32
	paths []*field.Path // by id
}

// NewPathTable returns an empty table.
func NewPathTable() *PathTable {
	return &PathTable{steps: map[PathStep]int32{}, byStr: map[string]int32{}}
}

// ID numbers a step; p is the same path as a field.Path, rendered only the first time.
func (t *PathTable) ID(s PathStep, p *field.Path) int32 {
	id, _ := t.Step(s, func() *field.Path { return p })
	return id
}

// Step numbers a step and returns its path; mk makes the path, called only the first time.
func (t *PathTable) Step(s PathStep, mk func() *field.Path) (int32, *field.Path) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.steps[s]; ok {
		return id, t.paths[id]
	}
	p := mk()
	str := ""
	if p != nil {
		str = p.String()
	}
	id, ok := t.byStr[str]
	if !ok {
		id = int32(len(t.byStr))
		t.byStr[str] = id
		t.paths = append(t.paths, p)
	}
	t.steps[s] = id
	return id, t.paths[id]
}

func (t *PathTable) lookup(path string) (int32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byStr[path]
	return id, ok
}

type pathLine struct{ id, line int32 }

// LineIndex holds the lines of one object's fields; nil for an object built in memory.
// While the object is read they are (path, line) pairs; Done packs them, sorted by path,
// as varints of the difference to the previous path and of the line's distance from the
// first line of the object: two or three bytes a field where the pairs took eight, and
// on trees of thousands of objects the index was a tenth of what a Load kept.
type LineIndex struct {
	tab    *PathTable
	lines  []pathLine // while the object is read; nil once packed
	packed []byte
	base   int32 // the smallest line
}

// NewLineIndex returns an empty index of paths numbered by tab.
func NewLineIndex(tab *PathTable) *LineIndex { return &LineIndex{tab: tab} }

// Table is the table the index numbers its paths by.
func (l *LineIndex) Table() *PathTable { return l.tab }

// Add records the line of path id.
func (l *LineIndex) Add(id int32, line int) {
	l.lines = append(l.lines, pathLine{id, int32(line)})
}

// Done packs the pairs; a path set twice keeps its last line, as a map would.
func (l *LineIndex) Done() {
	sort.SliceStable(l.lines, func(i, j int) bool { return l.lines[i].id < l.lines[j].id })
	kept := l.lines[:0]
	for i, pl := range l.lines {
		if i+1 < len(l.lines) && l.lines[i+1].id == pl.id {
			continue
		}
		kept = append(kept, pl)
	}
	l.base = 0
	for i, pl := range kept {
		if i == 0 || pl.line < l.base {
			l.base = pl.line
		}
	}
	buf := make([]byte, 0, 3*len(kept))
	prev := int32(0)
	for _, pl := range kept {
		buf = binary.AppendUvarint(buf, uint64(pl.id-prev))
		buf = binary.AppendUvarint(buf, uint64(pl.line-l.base))
		prev = pl.id
	}
	l.packed, l.lines = slices.Clip(buf), nil
}

// Get returns the line of a field path as field.Path renders it.
func (l *LineIndex) Get(path string) (int, bool) {
	if l == nil {
		return 0, false
	}
	want, ok := l.tab.lookup(path)
	if !ok {
		return 0, false
	}
	if l.lines != nil { // not packed yet
		for i := len(l.lines) - 1; i >= 0; i-- {
			if l.lines[i].id == want {
				return int(l.lines[i].line), true
			}
		}
		return 0, false
	}
	id, b := int64(0), l.packed
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		b = b[n:]
		line, m := binary.Uvarint(b)
		b = b[m:]
		if n <= 0 || m <= 0 {
			return 0, false
		}
		id += int64(d)
		switch {
		case id == int64(want):
			return int(l.base) + int(line), true
		case id > int64(want):
			return 0, false
		}
	}
	return 0, false
}
