package gitops

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// Two renders in Helm's engine at once, the heap measured for the process: the one whose
// growth goes on once the other has finished is given up, the other is not, and no new
// render starts while the guard measures them again.
func TestRenderGuardBlamesTheOneThatGrows(t *testing.T) {
	var mu sync.Mutex
	var h uint64
	set := func(v uint64) { mu.Lock(); h = v; mu.Unlock() }
	g := newRenderGuard(2, func() uint64 { mu.Lock(); defer mu.Unlock(); return h })
	const bound = 100
	hog, quick := g.enter(), g.enter()
	for _, step := range []struct {
		heap uint64
		m    *heapMeter
	}{{150, hog}, {150, quick}, {250, quick}, {250, hog}} {
		set(step.heap)
		if err := step.m.over(bound); err != nil {
			t.Fatalf("at %d, with two renders in the engine: %v", step.heap, err)
		}
	}
	admitted := make(chan *heapMeter)
	go func() { admitted <- g.enter() }() // waits: the guard drains
	g.leave(quick)                        // the quick render ends; the hog grows on alone
	var err error
	for _, v := range []uint64{300, 400, 520} {
		set(v)
		if err = hog.over(bound); err != nil {
			break
		}
	}
	if !errors.Is(err, errRenderBound) || h != 520 {
		t.Fatalf("the render that grew alone: %v at %d, want it given up at 520", err, h)
	}
	select {
	case <-admitted:
		t.Fatal("a render started while the guard measured the others again")
	default:
	}
	g.leave(hog)
	select {
	case m := <-admitted:
		g.leave(m)
	case <-time.After(time.Minute): // a hang guard only
		t.Fatal("no render started once the guard had drained")
	}
}

// One render alone is given up at its bound, as before renders ran at once; with others
// beside it, never past its bound times twice the workers.
func TestRenderGuardBounds(t *testing.T) {
	var h uint64
	g := newRenderGuard(2, func() uint64 { return h })
	m := g.enter()
	h = 100
	if err := m.over(100); err != nil {
		t.Fatalf("at its bound: %v", err)
	}
	h = 101
	if err := m.over(100); !errors.Is(err, errRenderBound) {
		t.Fatalf("past its bound alone: %v, want it given up", err)
	}
	g.leave(m)
	h = 0
	a, b := g.enter(), g.enter()
	for _, v := range []uint64{201, 400} { // past what the two may hold, then measured again
		h = v
		if err := a.over(100); err != nil {
			t.Fatalf("at %d: %v", v, err)
		}
	}
	h = 401
	if err := a.over(100); !errors.Is(err, errRenderBound) {
		t.Fatalf("past 4 times its bound with another beside it: %v, want it given up", err)
	}
	g.leave(a)
	g.leave(b)
}

// Jobs start in the order queued, no more than the window ahead of what was taken; a job
// waited for before any worker took it (one queued behind a full window) runs on the
// waiter, so a load never waits on a job nobody may start.
func TestRenderPoolWindow(t *testing.T) {
	p := &renderPool{workers: 1, window: 2, guard: newRenderGuard(1, func() uint64 { return 0 })}
	release := make(chan struct{})
	var mu sync.Mutex
	var order []int
	job := func(i int, block bool) *renderJob {
		j := &renderJob{done: make(chan struct{})}
		j.run = func() {
			defer close(j.done)
			if block {
				<-release
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}
		p.submit(j)
		return j
	}
	first := job(0, true) // holds the one worker
	second := job(1, false)
	third := job(2, false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.wait(third) // queued behind the window: run here
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang guard only
		t.Fatal("waiting for a job no worker took never ended")
	}
	close(release)
	p.wait(first)
	p.wait(second)
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 3 || order[0] != 2 {
		t.Fatalf("ran in order %v, want the job waited for first, then the others", order)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held != 0 || len(p.queue) != 0 {
		t.Fatalf("the pool holds %d and queues %d after every job was taken", p.held, len(p.queue))
	}
}
