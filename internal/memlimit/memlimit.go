// Package memlimit keeps the Go runtime's soft memory limit in step with the live heap, for
// the commands that read a whole tree of manifests.
//
// With the collector's defaults a process holds up to twice its live heap, and keeps pages
// it freed until the scavenger returns them at its own pace. For a command whose live set
// is small (a lean check of 10,000 clusters keeps about 15 MiB) that headroom and those
// pages are most of its memory; for one whose live set is large, twice it is. Follow sets
// the limit after every collection to the live heap times a ratio plus a slack, never
// below a floor: the collector then runs a little more often and returns freed pages
// promptly, and because the limit always leaves room above the live heap it never
// collects back to back (the limit is soft: a live heap past it still grows).
package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const liveMetric = "/gc/heap/live:bytes"

var once sync.Once

// Follow keeps the soft memory limit at max(floor, live*ratio + slack) bytes, live being
// the heap marked live by the last collection, from now until the process ends. Only the
// first call has an effect; GOMEMLIMIT in the environment, when set, wins.
func Follow(floor, slack int64, ratio float64) {
	once.Do(func() {
		if _, set := os.LookupEnv("GOMEMLIMIT"); set || debug.SetMemoryLimit(-1) != math.MaxInt64 {
			return // GOMEMLIMIT is set (off included, which reads as no limit): the user's stands
		}
		f := &follower{floor: floor, slack: slack, ratio: ratio, sample: []metrics.Sample{{Name: liveMetric}}}
		f.adjust()
		f.arm()
	})
}

type follower struct {
	floor, slack int64
	ratio        float64
	sample       []metrics.Sample
}

// sentinel is garbage from birth: its finalizer runs after the collection that finds it,
// which is when the live heap is known. 32 bytes keep it out of the tiny allocator, whose
// objects share finalizers.
type sentinel struct{ _ [32]byte }

func (f *follower) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		f.adjust()
		f.arm()
	})
}

// Limit is the limit Follow sets for a live heap of live bytes.
func Limit(live, floor, slack int64, ratio float64) int64 {
	return max(floor, int64(float64(live)*ratio)+slack)
}

func (f *follower) adjust() {
	metrics.Read(f.sample)
	var live int64
	if v := f.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live = int64(v.Uint64())
	}
	debug.SetMemoryLimit(Limit(live, f.floor, f.slack, f.ratio))
}
