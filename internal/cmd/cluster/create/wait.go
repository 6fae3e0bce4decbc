package create

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/progress"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file is what cluster create does live beyond creating: --dry-run=server, and
// --wait, which follows the new cluster until its phase is Ready.

// DefaultTimeout is how long --wait waits by default.
const DefaultTimeout = 15 * time.Minute

// Phases of a TenantCluster that end a wait.
const (
	PhaseReady  = "Ready"
	PhaseFailed = "Failed"
)

// Intervals of the wait; variables so tests can shorten them.
var (
	// PollInterval is how often the cluster is read when watching is not possible (the
	// server refuses watches, or they keep failing).
	PollInterval = 2 * time.Second
	// ProgressInterval is how often a line says the wait goes on when stderr is no
	// terminal and nothing changed.
	ProgressInterval = 30 * time.Second
	// SpinnerInterval is the spinner's frame time on a terminal.
	SpinnerInterval = 120 * time.Millisecond
	// watchFailures is how many watches in a row may fail, or end at once without an
	// event, before the wait falls back to polling.
	watchFailures = 3
)

// Goal is what Wait waits for.
type Goal struct {
	// What ends "waiting for TenantCluster ns/name to be …": "Ready".
	What string
	// Reached reports whether the cluster got there.
	Reached func(*v1alpha1.TenantCluster) bool
	// Left says, on a timeout, what is left behind.
	Left string
}

// ReadyGoal is the wait of cluster create --wait: phase Ready.
var ReadyGoal = Goal{
	What:    PhaseReady,
	Reached: func(c *v1alpha1.TenantCluster) bool { return c.Status.Phase == PhaseReady },
	Left:    "the cluster was created and is still there",
}

// serverDryRun sends the cluster and its addons with server-side dry run and prints what
// the server returned, as the rendering is printed (YAML unless -o says otherwise).
func serverDryRun(ctx context.Context, f *factory.Factory, s store.Store, p *plan, o *Options) error {
	cs, ok := s.(store.ClusterServer)
	if !ok {
		return cmdutil.UsageError("--dry-run=server needs a live cluster (the %s store has no server)", s.Mode())
	}
	c, addons, err := cs.DryRunCreateCluster(ctx, p.cluster, p.addons)
	if err != nil {
		return err
	}
	answered := *p
	answered.cluster, answered.addons = c, addons
	return o.Print.Printer(f.IOStreams).Print(planDoc(&answered, "", ""))
}

// waitReady waits for the cluster just created, with progress on stderr.
func waitReady(ctx context.Context, f *factory.Factory, s store.Store, c *v1alpha1.TenantCluster, timeout time.Duration, structured bool) error {
	cs, ok := s.(store.ClusterServer)
	if !ok {
		return fmt.Errorf("the %s store cannot wait for a cluster", s.Mode())
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
	rep := progress.New(f.IOStreams, progress.ModeFor(f.IOStreams, structured))
	pr := newProgress(rep, fmt.Sprintf("TenantCluster %s/%s", c.Namespace, c.Name), timeout, now)
	got, err := Wait(ctx, s, cs, c.Namespace, c.Name, timeout, ReadyGoal, pr.update)
	pr.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "TenantCluster %s/%s is Ready (%s)\n", got.Namespace, got.Name, pr.elapsed())
	return nil
}

// Wait follows a TenantCluster until its status.phase is Ready, for at most timeout, and
// returns it then. It reads the cluster, then watches it from that resourceVersion; a watch
// that ends is started again after a fresh read (which also catches up after a 410 Gone),
// and when watches cannot be had (refused, or failing again and again) it reads the
// cluster every PollInterval instead. report sees every state of the cluster it learns of.
//
// It fails on a timeout, when the cluster reaches phase Failed, and when it is deleted or
// being deleted; the errors say which, and exit 1. goal says what it waits for (ReadyGoal
// after a create).
func Wait(ctx context.Context, s store.Store, cs store.ClusterServer, namespace, name string, timeout time.Duration, goal Goal, report func(*v1alpha1.TenantCluster)) (*v1alpha1.TenantCluster, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	what := fmt.Sprintf("TenantCluster %s/%s", namespace, name)
	var last *v1alpha1.TenantCluster
	timedOut := func() error {
		phase := "no phase yet"
		if last != nil && last.Status.Phase != "" {
			phase = "phase " + last.Status.Phase
		}
		return cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("timed out after %s waiting for %s to be %s (%s); %s", timeout, what, goal.What, phase, goal.Left))
	}
	// seen records a state; done when the wait is over, with err set when it failed.
	seen := func(c *v1alpha1.TenantCluster) (done bool, err error) {
		last = c
		report(c)
		switch {
		case goal.Reached(c):
			return true, nil
		case c.Status.Phase == PhaseFailed:
			return true, cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("%s failed: phase Failed%s", what, readyReason(c)))
		case c.DeletionTimestamp != nil:
			return true, cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("%s is being deleted: it will not become %s", what, goal.What))
		}
		return false, nil
	}
	gone := func() error {
		return cmdutil.WithCode(cmdutil.ExitFailure, fmt.Errorf("%s was deleted while waiting for it to be %s", what, goal.What))
	}
	// read gets the cluster; ok false with a nil error means try again later.
	read := func() (done bool, err error) {
		c, err := s.GetCluster(ctx, namespace, name)
		switch {
		case ctx.Err() != nil:
			return true, timedOut()
		case apierrors.IsNotFound(err):
			return true, gone()
		case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
			return true, err
		case err != nil:
			return false, nil // transient: the next read may work
		}
		return seen(c)
	}

	if done, err := read(); done {
		return last, err
	}
	failures := 0
	for {
		if failures < watchFailures && last != nil {
			w, err := cs.WatchCluster(ctx, namespace, name, last.ResourceVersion)
			if err == nil {
				started := time.Now()
				events, done, err := follow(ctx, w, seen, gone)
				w.Stop()
				if done {
					return last, err
				}
				if events == 0 && time.Since(started) < time.Second {
					failures++
				} else {
					failures = 0
				}
			} else {
				failures++
				if apierrors.IsForbidden(err) {
					failures = watchFailures // may read, may not watch: poll
				}
			}
			if ctx.Err() != nil {
				return last, timedOut()
			}
			if failures > 0 {
				// Do not hammer a server that refuses or drops watches.
				select {
				case <-ctx.Done():
					return last, timedOut()
				case <-time.After(PollInterval / 4):
				}
			}
		} else {
			select {
			case <-ctx.Done():
				return last, timedOut()
			case <-time.After(PollInterval):
			}
		}
		// A fresh read: after a watch ended (or expired: 410 Gone), or as the poll.
		if done, err := read(); done {
			return last, err
		}
	}
}

// follow consumes a watch until it ends, the wait is over, or ctx is done. It returns how
// many events it saw and, when the wait is over, done and the outcome.
func follow(ctx context.Context, w watch.Interface, seen func(*v1alpha1.TenantCluster) (bool, error), gone func() error) (int, bool, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, false, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return n, false, nil
			}
			n++
			switch ev.Type {
			case watch.Added, watch.Modified:
				c, ok := ev.Object.(*v1alpha1.TenantCluster)
				if !ok {
					continue
				}
				if done, err := seen(c); done {
					return n, true, err
				}
			case watch.Deleted:
				return n, true, gone()
			case watch.Error:
				// 410 Gone (the resourceVersion is too old) or another failure: the
				// caller reads the cluster again and watches from there.
				return n, false, nil
			}
		}
	}
}

// readyReason is the Ready condition's reason and message, when the cluster has one.
func readyReason(c *v1alpha1.TenantCluster) string {
	cond := meta.FindStatusCondition(c.Status.Conditions, "Ready")
	if cond == nil || (cond.Reason == "" && cond.Message == "") {
		return ""
	}
	if cond.Message == "" {
		return fmt.Sprintf(" (%s)", cond.Reason)
	}
	if cond.Reason == "" {
		return fmt.Sprintf(" (%s)", cond.Message)
	}
	return fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
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
	if c.Status.Phase == PhaseReady {
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
