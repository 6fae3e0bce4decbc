package manifest

import (
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

var (
	benchTreeOnce sync.Once
	benchTree     *manifesttest.Tree
	benchTreeErr  error
)

// TestMain removes the benchmark's tree, which benchmarks share and so cannot clean up.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchTree != nil {
		os.RemoveAll(benchTree.Dir)
	}
	os.Exit(code)
}

// benchTreeDir generates the tree of bench/manifests.sh once per test binary: 10,000
// clusters in 20 teams by default, BUTLER_BENCH_CLUSTERS to change the count.
func benchTreeDir(b *testing.B) *manifesttest.Tree {
	benchTreeOnce.Do(func() {
		n := 10000
		if s := os.Getenv("BUTLER_BENCH_CLUSTERS"); s != "" {
			n, benchTreeErr = strconv.Atoi(s)
			if benchTreeErr != nil {
				return
			}
		}
		dir, err := os.MkdirTemp("", "manifest-bench-")
		if err != nil {
			benchTreeErr = err
			return
		}
		benchTree, benchTreeErr = manifesttest.Generate(dir, 20, n)
	})
	if benchTreeErr != nil {
		b.Fatal(benchTreeErr)
	}
	return benchTree
}

// BenchmarkLoadTree loads the tree of bench/manifests.sh (the offline commands' first
// step); b.SetBytes makes the figure a throughput in MB/s of manifests.
func BenchmarkLoadTree(b *testing.B) {
	t := benchTreeDir(b)
	b.SetBytes(t.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		set, err := Load([]string{t.Dir}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(set.Objects) + set.Clusters.Len(); n != t.Files {
			b.Fatalf("%d objects and clusters, want %d", n, t.Files)
		}
	}
}
