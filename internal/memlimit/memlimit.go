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
		f := &follower{floor: floor, slack: slack, ratio: ratio, sample: []metrics.Sample{
			{Name: liveMetric}, {Name: totalMetric}, {Name: objectsMetric}, {Name: freeMetric}, {Name: releasedMetric}}}
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

// Limit is the limit Follow sets for a live heap of live bytes, besides overhead bytes of
// what the limit counts that are not heap objects and not free pages (the runtime's own
// structures, goroutine stacks, the unused ends of spans).
func Limit(live, overhead, floor, slack int64, ratio float64) int64 {
	return max(floor, overhead+int64(float64(live)*ratio)+slack)
}

// The runtime's figures Follow reads: the limit counts all it maps (total) but what it
// gave back (released); of that, heap objects and free pages are the collector's to
// shrink, the rest is overhead. Leaving the overhead out of the room given to the heap
// made a tree of 30,000 clusters collect back to back, its live heap at the limit.
const (
	totalMetric    = "/memory/classes/total:bytes"
	objectsMetric  = "/memory/classes/heap/objects:bytes"
	freeMetric     = "/memory/classes/heap/free:bytes"
	releasedMetric = "/memory/classes/heap/released:bytes"
)

func (f *follower) adjust() {
	metrics.Read(f.sample)
	v := make([]int64, len(f.sample))
	for i, s := range f.sample {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64())
		}
	}
	live, total, objects, free, released := v[0], v[1], v[2], v[3], v[4]
	debug.SetMemoryLimit(Limit(live, max(0, total-released-objects-free), f.floor, f.slack, f.ratio))
}
