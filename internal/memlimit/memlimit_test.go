package memlimit

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	for _, c := range []struct{ live, overhead, want int64 }{
		{0, 0, 32 << 20},               // nothing live: the floor
		{10 << 20, 0, 32 << 20},        // 15 MiB + 8 MiB is under the floor
		{100 << 20, 0, 158 << 20},      // 150 MiB + 8 MiB
		{20 << 20, 16 << 20, 54 << 20}, // the overhead on top: room for the heap still
	} {
		if got := Limit(c.live, c.overhead, 32<<20, 8<<20, 1.5); got != c.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", c.live, c.overhead, got, c.want)
		}
	}
}

// Follow sets the limit at once, and again after collections, to follow the live heap.
func TestFollow(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set")
	}
	defer debug.SetMemoryLimit(math.MaxInt64)
	Follow(32<<20, 8<<20, 1.5)
	if got := debug.SetMemoryLimit(-1); got < 32<<20 || got == math.MaxInt64 {
		t.Fatalf("limit %d after Follow, want at least the floor", got)
	}
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB live: past the floor
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 64<<20*3/2 {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d with 64 MiB live, want it past 96 MiB", debug.SetMemoryLimit(-1))
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
	}
	runtime.KeepAlive(keep)
}

// GOMEMLIMIT=off is the user's choice too, though the runtime reads it as no limit at all:
// Follow leaves it. Run in a process of its own, as the runtime reads GOMEMLIMIT at start.
func TestFollowLeavesGOMEMLIMITOff(t *testing.T) {
	if os.Getenv("MEMLIMIT_CHILD") == "1" {
		Follow(32<<20, 8<<20, 1.5)
		os.Stdout.WriteString(strconv.FormatInt(debug.SetMemoryLimit(-1), 10) + "\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFollowLeavesGOMEMLIMITOff$")
	cmd.Env = append(os.Environ(), "MEMLIMIT_CHILD=1", "GOMEMLIMIT=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if got, err := strconv.ParseInt(first, 10, 64); err != nil || got != math.MaxInt64 {
		t.Errorf("limit with GOMEMLIMIT=off after Follow: %q, want none (%d)", first, int64(math.MaxInt64))
	}
}
