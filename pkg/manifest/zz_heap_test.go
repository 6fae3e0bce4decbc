package manifest

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

func TestZZHeap(t *testing.T) {
	dir := os.Getenv("ZZ_TREE")
	if dir == "" {
		t.Skip()
	}
	set, err := Load([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("live heap %d MiB, objects %d", ms.HeapAlloc>>20, len(set.Objects))
	f, _ := os.Create("/tmp/speed/heap.out")
	pprof.WriteHeapProfile(f)
	f.Close()
	runtime.KeepAlive(set)
}
