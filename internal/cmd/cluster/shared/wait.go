package shared

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/progress"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Intervals of the progress; variables so tests can shorten them.
var (
	// ProgressInterval is how often a line says the wait goes on when stderr is no
	// terminal and nothing changed.
	ProgressInterval = 30 * time.Second
	// SpinnerInterval is the spinner's frame time on a terminal.
	SpinnerInterval = 120 * time.Millisecond
)

// ShowStore is what showing clusters reads (cluster get, cluster list): the team and its
// clusters (store.Reader), their control planes (WRITES), and the server that pages and
// watches them.
type ShowStore interface {
	store.Reader
	store.ControlPlanes
	store.Served
}

// Watched is what waiting for a cluster (WaitReady) and watching it (cluster get --watch)
// read: the cluster, and its watch on the server.
type Watched interface {
	GetCluster(ctx context.Context, namespace, name string) (*v1alpha1.TenantCluster, error)
	store.Served
}

// WaitReady waits for the cluster just created, with progress on stderr.
func WaitReady(ctx context.Context, ios *iostreams.IOStreams, now func() time.Time, s Watched, c *v1alpha1.TenantCluster, timeout time.Duration, structured bool) error {
	cs, err := s.Server()
	if err != nil {
		return err
	}
	rep := progress.New(ios, progress.ModeFor(ios, structured))
	pr := newProgress(rep, fmt.Sprintf("TenantCluster %s/%s", c.Namespace, c.Name), timeout, now)
	got, err := clusterwatch.Wait(ctx, clusterwatch.One{Get: s.GetCluster, Watch: cs.WatchCluster}, c.Namespace, c.Name, timeout, clusterwatch.ReadyGoal, pr.update)
	pr.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "TenantCluster %s/%s is Ready (%s)\n", got.Namespace, got.Name, pr.elapsed())
	return nil
}

// waitProgress shows the wait on stderr (internal/progress): on a terminal one line with a
// spinner, rewritten in place; otherwise a line when the phase changes and one every
// ProgressInterval; nothing when piped with structured output.
type waitProgress struct {
	r       *progress.Reporter
	tty     bool
	what    string
	timeout time.Duration
	now     func() time.Time
	start   time.Time

	mu      sync.Mutex
	state   string // what the last report said
	printed string // the state last printed (plain mode)
	lastOut time.Time
	frame   int
	stopped bool // no more lines or frames
	once    sync.Once

	quit chan struct{}
	done chan struct{}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newProgress(r *progress.Reporter, what string, timeout time.Duration, now func() time.Time) *waitProgress {
	tty := r.Mode() == progress.Redraw
	p := &waitProgress{r: r, tty: tty, what: what, timeout: timeout, now: now, start: now(),
		state: "no phase yet", quit: make(chan struct{}), done: make(chan struct{})}
	if !tty {
		r.Line("Waiting for %s to be Ready (timeout %s)", what, timeout)
		p.lastOut = p.start
	}
	go p.loop()
	return p
}

func (p *waitProgress) elapsed() string {
	return p.now().Sub(p.start).Round(time.Second).String()
}

// update takes a new state of the cluster.
func (p *waitProgress) update(c *v1alpha1.TenantCluster) {
	state := "no phase yet"
	if c.Status.Phase != "" {
		state = "phase " + c.Status.Phase
	}
	if d := c.Status.WorkerNodesDesired; d > 0 {
		state += fmt.Sprintf(", %d/%d workers ready", c.Status.WorkerNodesReady, d)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state = state
	if c.Status.Phase == clusterwatch.PhaseReady {
		p.stopped = true // the caller says so itself; no more progress
		return
	}
	if !p.tty && state != p.printed {
		p.line("")
	}
}

// line prints the state in plain mode; the caller holds p.mu.
func (p *waitProgress) line(prefix string) {
	p.r.Line("%s: %s%s (%s)", p.what, prefix, p.state, p.elapsed())
	p.printed, p.lastOut = p.state, p.now()
}

func (p *waitProgress) loop() {
	defer close(p.done)
	every := SpinnerInterval
	if !p.tty {
		// Checked a few times per interval, so a line comes ProgressInterval after the last.
		every = max(ProgressInterval/6, time.Millisecond)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.mu.Lock()
			switch {
			case p.stopped: // nothing more to show
			case p.tty:
				p.frame = (p.frame + 1) % len(spinner)
				p.r.Status("%s Waiting for %s to be Ready: %s (%s)", spinner[p.frame], p.what, p.state, p.elapsed())
			case p.now().Sub(p.lastOut) >= ProgressInterval:
				p.line("still ")
			}
			p.mu.Unlock()
		}
	}
}

// stop ends the progress display, clearing the spinner's line.
func (p *waitProgress) stop() {
	p.once.Do(func() {
		p.mu.Lock()
		p.stopped = true
		p.mu.Unlock()
		close(p.quit)
		<-p.done
		p.r.End(false)
	})
}
