package manifest

import (
	"slices"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Where each field of an object was written. A Load numbers the field paths it meets
// (pathTable) and each object keeps (path number, line) pairs (lineIndex): the objects of
// a tree share a few hundred paths, and a map of path strings per object cost more memory
// than the objects themselves.

// pathStep is one step down a field path, as field.Path takes it.
type pathStep struct {
	parent int32 // the path it extends; noPath at the top
	kind   uint8 // stepChild, stepKey or stepIndex
	name   string
	index  int
}

const (
	stepChild uint8 = iota
	stepKey
	stepIndex
)

const noPath int32 = -1

// pathTable numbers the field paths of one Load; its workers share it. It also keeps one
// field.Path per path (field.Path is immutable), so that decoding does not build a new one
// for every node of every object.
type pathTable struct {
	mu    sync.Mutex
	steps map[pathStep]int32
	byStr map[string]int32
	paths []*field.Path // by id
}

func newPathTable() *pathTable {
	return &pathTable{steps: map[pathStep]int32{}, byStr: map[string]int32{}}
}

// id numbers a step; p is the same path as a field.Path, rendered only the first time.
func (t *pathTable) id(s pathStep, p *field.Path) int32 {
	id, _ := t.step(s, func() *field.Path { return p })
	return id
}

// step numbers a step and returns its path; mk makes the path, called only the first time.
func (t *pathTable) step(s pathStep, mk func() *field.Path) (int32, *field.Path) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.steps[s]; ok {
		return id, t.paths[id]
	}
	p := mk()
	str := pathString(p)
	id, ok := t.byStr[str]
	if !ok {
		id = int32(len(t.byStr))
		t.byStr[str] = id
		t.paths = append(t.paths, p)
	}
	t.steps[s] = id
	return id, t.paths[id]
}

func (t *pathTable) lookup(path string) (int32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byStr[path]
	return id, ok
}

type pathLine struct{ id, line int32 }

// lineIndex holds the lines of one object's fields; nil for an object built in memory.
type lineIndex struct {
	tab   *pathTable
	lines []pathLine // sorted by id once the object is read (done)
}

func (l *lineIndex) add(id int32, line int) {
	l.lines = append(l.lines, pathLine{id, int32(line)})
}

// done sorts the pairs for get; a path set twice keeps its last line, as a map would.
func (l *lineIndex) done() {
	sort.SliceStable(l.lines, func(i, j int) bool { return l.lines[i].id < l.lines[j].id })
	l.lines = slices.Clip(slices.Clone(l.lines)) // no spare capacity kept per object
}

// get returns the line of a field path as field.Path renders it.
func (l *lineIndex) get(path string) (int, bool) {
	if l == nil {
		return 0, false
	}
	id, ok := l.tab.lookup(path)
	if !ok {
		return 0, false
	}
	i := sort.Search(len(l.lines), func(i int) bool { return l.lines[i].id > id }) - 1
	if i < 0 || l.lines[i].id != id {
		return 0, false
	}
	return int(l.lines[i].line), true
}

// enter records the line of a step below the current path and makes it current; the
// caller restores the returned path with leave when done with the step.
func (c *converter) enter(s pathStep, p *field.Path, line int) int32 {
	prev := c.pid
	if c.lines != nil {
		s.parent = prev
		c.pid = c.lines.tab.id(s, p)
		c.lines.add(c.pid, line)
	}
	return prev
}

func (c *converter) leave(prev int32) { c.pid = prev }

// down is enter for fill: it returns the step's path as well, the table's shared one when
// lines are recorded (else a new one), and the path to restore with leave.
func (c *converter) down(s pathStep, p *field.Path, line int) (*field.Path, int32) {
	mk := func() *field.Path {
		switch s.kind {
		case stepChild:
			return child(p, s.name)
		case stepKey:
			return key(p, s.name)
		}
		return p.Index(s.index)
	}
	prev := c.pid
	if c.lines == nil {
		return mk(), prev
	}
	s.parent = prev
	id, sp := c.lines.tab.step(s, mk)
	c.pid = id
	c.lines.add(id, line)
	return sp, prev
}
