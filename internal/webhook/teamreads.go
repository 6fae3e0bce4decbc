package webhook

import (
	"context"
	"sync"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// teamReadTimeout bounds one shared Team read; each review still waits only as long as
// its own deadline allows.
const teamReadTimeout = 10 * time.Second

// teamReads shares fresh Team reads between the reviews waiting for the same Team, and
// keeps them fresh: a review joins only a read that starts after it asked, so it sees
// every change to the Team stored before it asked (a lowered cap applies at once, as with
// a read of its own). While a read is in flight, the reviews that ask meanwhile wait for
// it to end and then share the next one: 20 writers of one team cost about one Team read
// per read's time instead of 20.
type teamReads struct {
	get func(ctx context.Context, name string) (*v1alpha1.Team, error)

	mu   sync.Mutex
	cur  map[string]*teamFlight // in flight
	next map[string]*teamFlight // to start when cur ends, shared by who asked meanwhile
}

type teamFlight struct {
	done chan struct{}
	team *v1alpha1.Team
	err  error
}

func newTeamReads(get func(ctx context.Context, name string) (*v1alpha1.Team, error)) *teamReads {
	return &teamReads{get: get, cur: map[string]*teamFlight{}, next: map[string]*teamFlight{}}
}

func (r *teamReads) Get(ctx context.Context, name string) (*v1alpha1.Team, error) {
	r.mu.Lock()
	var f *teamFlight
	if r.cur[name] == nil {
		f = &teamFlight{done: make(chan struct{})}
		r.cur[name] = f
		r.mu.Unlock()
		go r.run(name, f)
	} else if f = r.next[name]; f == nil {
		// Started before this review asked: wait for it, then start the next read.
		prev := r.cur[name]
		f = &teamFlight{done: make(chan struct{})}
		r.next[name] = f
		r.mu.Unlock()
		go func() {
			<-prev.done
			r.mu.Lock()
			r.cur[name] = f
			delete(r.next, name)
			r.mu.Unlock()
			r.run(name, f)
		}()
	} else {
		r.mu.Unlock()
	}
	select {
	case <-f.done:
		if f.err != nil {
			return nil, f.err
		}
		return f.team.DeepCopy(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (r *teamReads) run(name string, f *teamFlight) {
	ctx, cancel := context.WithTimeout(context.Background(), teamReadTimeout)
	defer cancel()
	f.team, f.err = r.get(ctx, name)
	r.mu.Lock()
	if r.cur[name] == f {
		delete(r.cur, name)
	}
	r.mu.Unlock()
	close(f.done)
}
