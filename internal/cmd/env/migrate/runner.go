package migrate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/progress"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// runner migrates the planned clusters, concurrency at a time.
type runner struct {
	io          *iostreams.IOStreams
	s           Store
	req         policy.MigrationRequest
	concurrency int

	mu        sync.Mutex
	conflicts int
}

type job struct {
	index int
	move  policy.MigrationMove
}

// run migrates every move and cleanup; results come back in plan order.
func (r *runner) run(ctx context.Context, p *policy.MigrationPlan, structured bool) ([]Result, int, bool) {
	byName := make(map[string]*v1alpha1.TenantCluster, len(r.req.Clusters))
	for i := range r.req.Clusters {
		byName[r.req.Clusters[i].Name] = &r.req.Clusters[i]
	}
	moves := append(append([]policy.MigrationMove{}, p.Moves...), p.Cleanups...)
	results := make([]Result, len(moves))
	prog := newTally(r.io, p.Environment, len(moves), structured)

	jobs := make(chan job)
	var wg sync.WaitGroup
	workers := min(r.concurrency, len(moves))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					results[j.index] = notAttempted(j.move)
					continue
				}
				res := r.migrate(ctx, byName[j.move.Cluster], j.move)
				results[j.index] = res
				prog.done(res)
			}
		}()
	}
feed:
	for i, m := range moves {
		select {
		case jobs <- job{index: i, move: m}:
		case <-ctx.Done():
			for k := i; k < len(moves); k++ {
				results[k] = notAttempted(moves[k])
			}
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	prog.finish()
	interrupted := false
	for _, res := range results {
		if res.Status == StatusNotAttempted {
			interrupted = true
		}
	}
	return results, r.conflicts, interrupted
}

func notAttempted(m policy.MigrationMove) Result {
	return Result{Cluster: m.Cluster, From: m.From, To: m.To, Status: StatusNotAttempted,
		Error: "the run was interrupted before this cluster"}
}

// migrate migrates one cluster, re-reading and re-planning it after a Conflict.
func (r *runner) migrate(ctx context.Context, c *v1alpha1.TenantCluster, m policy.MigrationMove) Result {
	res := Result{Cluster: m.Cluster, From: m.From, To: m.To}
	for {
		res.Attempts++
		out, err := r.s.MigrateCluster(ctx, c, m.To)
		if err == nil {
			res.Status = StatusMigrated
			if m.Cleanup {
				res.Status = StatusCleaned
			}
			return res
		}
		if out.Labeled {
			res.Status = StatusFailed
			res.Error = fmt.Sprintf("the environment label is set, but removing the %s annotation failed: %v; run the migration again to remove it",
				v1alpha1.AnnotationMigration, err)
			return res
		}
		switch {
		case apierrors.IsConflict(err) && res.Attempts < maxAttempts:
			r.mu.Lock()
			r.conflicts++
			r.mu.Unlock()
			fresh, gerr := r.s.GetCluster(ctx, c.Namespace, c.Name)
			if apierrors.IsNotFound(gerr) {
				res.Status, res.Message = StatusGone, "deleted during the run"
				return res
			}
			if gerr != nil {
				return failure(res, gerr)
			}
			step := policy.ClassifyMigration(r.req, fresh)
			if step.Skip != nil {
				if step.Skip.Reason == policy.SkipRefused {
					res.Status, res.Error = StatusDenied, step.Skip.Message
					return res
				}
				res.Status = StatusSkipped
				res.Message = "changed during the run, so planned again: " + skipMessage(*step.Skip)
				return res
			}
			c, m = fresh, step.Move
			res.From = m.From
		case apierrors.IsNotFound(err):
			res.Status, res.Message = StatusGone, "deleted during the run"
			return res
		case ctx.Err() != nil:
			res.Status = StatusNotAttempted
			res.Error = fmt.Sprintf("interrupted: %v", err)
			return res
		default:
			return failure(res, err)
		}
	}
}

// failure records err: a refusal by the server's rules or permissions is denied, anything
// else failed; the message is the server's.
func failure(res Result, err error) Result {
	res.Error = err.Error()
	res.Status = StatusFailed
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || cmdutil.CodeOf(err) == cmdutil.ExitDenied {
		res.Status = StatusDenied
	}
	return res
}

// tally counts the run for the progress display on stderr: a bar redrawn in place on a
// terminal, otherwise one line per cluster (none with -o json/yaml, whose consumers read
// stdout).
type tally struct {
	mu     sync.Mutex
	r      *progress.Reporter
	env    string
	total  int
	n, bad int
	last   time.Time
}

func newTally(ios *iostreams.IOStreams, env string, total int, structured bool) *tally {
	t := &tally{r: progress.New(ios, progress.ModeFor(ios, structured)), env: env, total: total}
	t.draw()
	return t
}

func (t *tally) done(r Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	if r.failed() {
		t.bad++
	}
	if time.Since(t.last) >= 100*time.Millisecond || t.n == t.total {
		t.draw()
	}
	detail := r.Error
	if detail == "" {
		detail = r.Message
	}
	if detail != "" {
		detail = ": " + detail
	}
	t.r.Line("[%d/%d] %s %s -> %s: %s%s", t.n, t.total, r.Cluster, fromText(r.From), r.To, r.Status, detail)
}

// draw redraws the bar (on a terminal only); the caller holds mu (or is the constructor).
func (t *tally) draw() {
	const width = 30
	fill := 0
	if t.total > 0 {
		fill = t.n * width / t.total
	}
	failed := ""
	if t.bad > 0 {
		failed = fmt.Sprintf(", %d failed", t.bad)
	}
	t.r.Status("Migrating to %q [%s%s] %d/%d%s", t.env,
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), t.n, t.total, failed)
	t.last = time.Now()
}

// finish draws the bar a last time and keeps it.
func (t *tally) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.draw()
	t.r.End(true)
}
