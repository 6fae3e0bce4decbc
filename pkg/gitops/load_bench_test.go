package gitops

import (
	"os"
	"testing"
)

// BenchmarkLoadTree loads the tree at BUTLER_FLUX_TREE (bench/flux.sh with KEEP writes
// one); skipped without it.
func BenchmarkLoadTree(b *testing.B) {
	dir := os.Getenv("BUTLER_FLUX_TREE")
	if dir == "" {
		b.Skip("BUTLER_FLUX_TREE is not set")
	}
	for b.Loop() {
		if _, err := Load([]string{dir}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
