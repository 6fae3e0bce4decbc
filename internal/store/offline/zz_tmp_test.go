package offline

import (
	"context"
	"testing"
	"time"
)

func TestZZScaleMany(t *testing.T) {
	ctx := context.Background()
	s, err := Load([]string{"/tmp/b6/mtree"}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := s.ListClusters(ctx, "")
	t0 := time.Now()
	n := 1000
	for i := 0; i < n; i++ {
		c := cs[i*7%len(cs)]
		if _, _, err := s.ScaleCluster(ctx, &c, c.Spec.Workers.Replicas+1); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d scales: %v, %v each", n, time.Since(t0), time.Since(t0)/time.Duration(n))
}
