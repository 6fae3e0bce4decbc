// Package clusterwatch follows TenantClusters for `cluster list --watch`, `cluster get
// --watch` and the --wait of cluster create and upgrade (Wait): every state of every cluster as it changes, from a watch that is resumed
// where it stopped when the connection drops, started afresh when the server has
// forgotten that point (410 Gone), and replaced by polling when the server refuses
// watches or they keep failing.
//
// The watch stream is the one live call without a deadline (it lasts until the user stops
// it); establishing it and every list of the polling fallback carry the store's request
// deadline.
package clusterwatch

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Intervals; variables so tests can shorten them.
var (
	// PollInterval is how often the clusters are listed when watching is not possible.
	PollInterval = 2 * time.Second
	// Backoff is the pause before a watch is started again after one failed.
	Backoff = 500 * time.Millisecond
)

// watchFailures is how many watches in a row may fail, or end at once without an event,
// before polling takes over.
const watchFailures = 3

// Source is what Run reads.
type Source struct {
	// List reads the current clusters (the polling fallback).
	List func(ctx context.Context) ([]v1alpha1.TenantCluster, error)
	// Watch watches from resourceVersion ("": the current state first, as ADDED events);
	// nil to poll only.
	Watch func(ctx context.Context, resourceVersion string) (watch.Interface, error)
	// Keep selects the clusters to show (nil: all).
	Keep func(*v1alpha1.TenantCluster) bool
	// ListFirst lists before the first watch, which then starts from the resourceVersion
	// of the last cluster listed: for one cluster (Wait), whose first state is so read
	// with the request deadline and whose absence is told at once.
	ListFirst bool
}

// Run calls emit with each state of each kept cluster it has not shown yet (a state is
// told apart by its resourceVersion), deleted set for a cluster's last state, until ctx is
// done (nil then) or emit or a refused read fails.
func Run(ctx context.Context, src Source, emit func(c *v1alpha1.TenantCluster, deleted bool) error) error {
	r := &runner{src: src, emit: emit, seen: map[string]string{}}
	failures := 0
	if src.Watch == nil {
		failures = watchFailures
	}
	if src.ListFirst && failures < watchFailures {
		if err := r.poll(ctx); err != nil {
			return err
		}
	}
	for ctx.Err() == nil {
		if failures >= watchFailures {
			if err := r.poll(ctx); err != nil {
				return err
			}
			sleep(ctx, PollInterval)
			continue
		}
		w, err := src.Watch(ctx, r.rv)
		if err != nil {
			failures++
			if apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) {
				failures = watchFailures // may list, may not watch: poll
			}
			sleep(ctx, Backoff)
			continue
		}
		started := time.Now()
		events, err := r.follow(ctx, w)
		w.Stop()
		if err != nil {
			return err
		}
		if events == 0 && time.Since(started) < time.Second {
			failures++
			sleep(ctx, Backoff)
		} else {
			failures = 0
		}
	}
	return nil
}

type runner struct {
	src  Source
	emit func(*v1alpha1.TenantCluster, bool) error
	seen map[string]string // namespace/name → resourceVersion shown
	rv   string            // where the next watch starts
}

func (r *runner) show(c *v1alpha1.TenantCluster, deleted bool) error {
	if r.src.Keep != nil && !r.src.Keep(c) {
		return nil
	}
	k := c.Namespace + "/" + c.Name
	if !deleted && r.seen[k] == c.ResourceVersion {
		return nil
	}
	if deleted {
		delete(r.seen, k)
	} else {
		r.seen[k] = c.ResourceVersion
	}
	return r.emit(c, deleted)
}

// follow consumes a watch until it ends or ctx is done; it returns how many events it saw.
func (r *runner) follow(ctx context.Context, w watch.Interface) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return n, nil // dropped: resumed from r.rv
			}
			n++
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				c, ok := ev.Object.(*v1alpha1.TenantCluster)
				if !ok {
					continue
				}
				r.rv = c.ResourceVersion
				if err := r.show(c, ev.Type == watch.Deleted); err != nil {
					return n, err
				}
			case watch.Bookmark:
				if m, err := meta.Accessor(ev.Object); err == nil {
					r.rv = m.GetResourceVersion()
				}
			case watch.Error:
				if err := apierrors.FromObject(ev.Object); apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					r.rv = "" // forgotten: start from the current state (shown states are skipped)
				}
				return n, nil
			}
		}
	}
}

// poll lists the clusters once and shows the states not shown yet; a cluster no longer
// listed is forgotten (its deletion cannot be shown: its last state is gone).
func (r *runner) poll(ctx context.Context) error {
	list, err := r.src.List(ctx)
	switch {
	case ctx.Err() != nil:
		return nil
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err), errors.Is(err, errOver):
		return err
	case err != nil:
		return nil // transient: the next poll may work
	}
	listed := map[string]bool{}
	for i := range list {
		listed[list[i].Namespace+"/"+list[i].Name] = true
		if r.src.ListFirst {
			r.rv = list[i].ResourceVersion
		}
		if err := r.show(&list[i], false); err != nil {
			return err
		}
	}
	for k := range r.seen {
		if !listed[k] {
			delete(r.seen, k)
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
