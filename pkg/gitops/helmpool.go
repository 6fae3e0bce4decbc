package gitops

import (
	"fmt"
	"io"
	"log"
	"runtime"
	"runtime/metrics"
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Releases render on workers, one a core: a release's values read, its chart rendered
// and its documents decoded off the loader's goroutine, which takes the results in the
// releases' order, so objects and errors come out as one render after another gives them.
// Jobs start in the order they were queued, and no more than a window of them is started
// and not yet taken (one more while the loader runs the job it waits for itself), so a
// load holds a few renders' results at a time, not all of them.

// maxRenderWorkers caps the workers on a machine of many cores: each render may hold up to
// its heap bound, and the renders in flight together up to that times twice the workers
// (renderGuard).
const maxRenderWorkers = 8

// renderPool is a load's render workers, and the heap guard of the renders in Helm's
// engine.
type renderPool struct {
	mu      sync.Mutex
	queue   []*renderJob // not started, in order
	running int          // on a worker
	held    int          // started and not yet taken
	workers int
	window  int
	guard   *renderGuard
}

func newRenderPool() *renderPool {
	n := min(runtime.GOMAXPROCS(0), maxRenderWorkers)
	return &renderPool{workers: n, window: 2 * n, guard: newRenderGuard(n, readHeap)}
}

func (l *loader) renderPool() *renderPool {
	h := l.helmState()
	if h.pool == nil {
		h.pool = newRenderPool()
	}
	return h.pool
}

// renderJob is one release's work on a worker.
type renderJob struct {
	run     func()
	started bool // under the pool's lock
	done    chan struct{}
	objs    []manifest.Object
	skip    notRendered
	err     error
}

// submit queues a job and starts what the workers and the window allow.
func (p *renderPool) submit(j *renderJob) {
	p.mu.Lock()
	p.queue = append(p.queue, j)
	p.mu.Unlock()
	p.kick()
}

func (p *renderPool) kick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.running < p.workers && p.held < p.window && len(p.queue) > 0 {
		j := p.queue[0]
		p.queue[0] = nil // what the job holds goes with it, not with the queue's array
		p.queue = p.queue[1:]
		j.started = true
		p.running++
		p.held++
		go func() {
			j.run()
			j.run = nil
			p.mu.Lock()
			p.running--
			p.mu.Unlock()
			p.kick()
		}()
	}
}

// wait is a job's result. A job not started yet (one queued behind jobs started ahead)
// runs on the caller's goroutine: a load never waits for a job no worker may take.
func (p *renderPool) wait(j *renderJob) ([]manifest.Object, notRendered, error) {
	p.mu.Lock()
	if !j.started {
		for i, q := range p.queue {
			if q == j {
				p.queue = append(p.queue[:i:i], p.queue[i+1:]...)
				break
			}
		}
		j.started = true
		p.held++
		p.mu.Unlock()
		j.run()
		j.run = nil
	} else {
		p.mu.Unlock()
	}
	<-j.done
	p.mu.Lock()
	p.held--
	p.mu.Unlock()
	p.kick()
	return j.objs, j.skip, j.err
}

// startRender queues inst's render: first prepare, when not nil (the release's values:
// it may say the release is not rendered), then the chart. Everything the job touches is
// its own install or read-only state of the loader, but for the chart cache and the
// values files read (helmState's lock).
func (l *loader) startRender(inst *install, prepare func() (notRendered, error)) *renderJob {
	j := &renderJob{done: make(chan struct{})}
	j.run = func() {
		defer close(j.done)
		defer func() {
			if v := recover(); v != nil { // hostile input never crashes the tools
				j.err = fmt.Errorf("%s %q: internal error while rendering its chart: %v", inst.entry.Kind, qualifiedName(inst.entry), v)
			}
		}()
		if prepare != nil {
			if j.skip, j.err = prepare(); j.err != nil || j.skip.why != "" {
				return
			}
		}
		j.objs, j.err = l.renderRelease(inst)
		// The values are placed in the objects by now: a release's merged values can be
		// larger than what it renders, and no later step reads them.
		inst.vals, inst.rel.vals = nil, nil
	}
	l.renderPool().submit(j)
	return j
}

// quietHelm keeps Helm's standard-logger words (what it makes of values it cannot
// coalesce) off the tools' output while any render runs: the logger is the process's, so
// the first render in silences it and the last one out restores it.
var quietHelm struct {
	mu   sync.Mutex
	n    int
	prev io.Writer
}

func silenceHelm() (restore func()) {
	quietHelm.mu.Lock()
	if quietHelm.n == 0 {
		quietHelm.prev = log.Writer()
		log.SetOutput(io.Discard)
	}
	quietHelm.n++
	quietHelm.mu.Unlock()
	return func() {
		quietHelm.mu.Lock()
		if quietHelm.n--; quietHelm.n == 0 {
			log.SetOutput(quietHelm.prev)
		}
		quietHelm.mu.Unlock()
	}
}

// heapMetric is the heap's objects, live or not yet swept: what a render's output grows.
const heapMetric = "/memory/classes/heap/objects:bytes"

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// renderGuard bounds the heap the renders in Helm's engine grow. The heap is the
// process's, and renders run at once: what one render's samples see grow, the others may
// have grown. So each render is allowed its bound times the renders in the engine with it
// now. When a render passes that and has not been alone since it was last measured from,
// no new render starts (the guard drains) and it is measured again from there: the renders
// beside it finish or pass their own bounds, and the one that still grows, alone, is the
// one given up. Whatever happens, no render grows the heap past its bound times twice the
// workers: the renders in flight may hold their bound each, and once more while measured
// again.
type renderGuard struct {
	workers int
	heap    func() uint64
	mu      sync.Mutex
	cond    *sync.Cond
	running int    // renders in the engine now
	started uint64 // renders admitted, ever
	drains  int    // renders being measured again: none is admitted meanwhile
}

func newRenderGuard(workers int, heap func() uint64) *renderGuard {
	g := &renderGuard{workers: workers, heap: heap}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// enter admits a render into the engine (waiting while the guard drains) and starts its
// meter.
func (g *renderGuard) enter() *heapMeter {
	g.mu.Lock()
	for g.drains > 0 {
		g.cond.Wait()
	}
	g.running++
	g.started++
	m := &heapMeter{g: g, start: g.heap()}
	m.rebase(m.start, g.running, g.started)
	g.mu.Unlock()
	return m
}

// leave ends a render's time in the engine.
func (g *renderGuard) leave(m *heapMeter) {
	g.mu.Lock()
	g.running--
	if m.draining {
		g.drains--
	}
	g.cond.Broadcast()
	g.mu.Unlock()
}

// heapMeter measures one render.
type heapMeter struct {
	g        *renderGuard
	start    uint64 // the heap when it entered
	base     uint64 // the heap when it was last measured from
	alone    bool   // it was the only render in the engine then
	since    uint64 // the renders admitted by then
	draining bool
}

func (m *heapMeter) rebase(h uint64, running int, started uint64) {
	m.base, m.alone, m.since = h, running == 1, started
}

// over samples the heap: an error when the render is given up at its bound (bound: the
// growth one render may hold).
func (m *heapMeter) over(bound int64) error {
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.heap()
	alone := m.alone && g.running == 1 && g.started == m.since
	if h > m.base && int64(h-m.base) > bound*int64(g.running) && alone {
		return fmt.Errorf("%w: it held more than %s", errRenderBound, fileio.Size(bound))
	}
	if most := bound * int64(2*g.workers); h > m.start && int64(h-m.start) > most {
		return fmt.Errorf("%w: it held more than %s, with other renders beside it", errRenderBound, fileio.Size(most))
	}
	if h <= m.base || int64(h-m.base) <= bound*int64(g.running) {
		return nil
	}
	if !m.draining {
		m.draining = true
		g.drains++
	}
	m.rebase(h, g.running, g.started)
	return nil
}
