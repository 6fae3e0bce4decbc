package offline

import (
	"context"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// BenchmarkScaleCluster scales one cluster after another of a tree of 10,000, as env
// migrate writes them: each write's cost beside the tree's size (a write that copied the
// set made a run over every cluster quadratic).
//
//	go test -run '^$' -bench ScaleCluster ./internal/store/offline
func BenchmarkScaleCluster(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if _, err := manifesttest.Generate(dir, 20, 10000); err != nil {
		b.Fatal(err)
	}
	s, err := Load([]string{dir}, nil, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := s.ListClusters(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		c := &cs[i*7%len(cs)]
		up, _, err := s.ScaleCluster(ctx, c, c.Spec.Workers.Replicas+1)
		if err != nil {
			b.Fatal(err)
		}
		*c = *up
		i++
	}
}
