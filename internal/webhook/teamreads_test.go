package webhook

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// TestTeamReadsShareOnlyFreshReads: a review joins no read that started before it asked;
// the reviews asking while one is in flight share the next read.
func TestTeamReadsShareOnlyFreshReads(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	r := newTeamReads(func(ctx context.Context, name string) (*v1alpha1.Team, error) {
		n := calls.Add(1)
		<-release
		tm := &v1alpha1.Team{}
		tm.Name = fmt.Sprintf("%s-read-%d", name, n)
		return tm, nil
	})
	ctx := context.Background()
	got := make([]string, 4)
	var wg sync.WaitGroup
	ask := func(i int) {
		defer wg.Done()
		tm, err := r.Get(ctx, "payments")
		if err != nil {
			t.Error(err)
			return
		}
		got[i] = tm.Name
	}
	wg.Add(1)
	go ask(0)
	for calls.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	// Asked while read 1 is in flight: they wait for read 2.
	wg.Add(3)
	go ask(1)
	go ask(2)
	go ask(3)
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d reads while the first is in flight, want the others waiting", n)
	}
	close(release)
	wg.Wait()
	want := []string{"payments-read-1", "payments-read-2", "payments-read-2", "payments-read-2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("review %d got %s, want %s", i, got[i], want[i])
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d reads for 4 reviews, want 2", n)
	}
	// A review whose deadline passes gives up alone.
	block := make(chan struct{})
	r2 := newTeamReads(func(context.Context, string) (*v1alpha1.Team, error) { <-block; return &v1alpha1.Team{}, nil })
	dctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := r2.Get(dctx, "x"); err == nil {
		t.Error("a review past its deadline got a Team")
	}
	close(block)
}
