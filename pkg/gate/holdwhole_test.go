package gate

import (
	"context"
	"testing"
)

// TestChangeReadsEveryCluster: a change check tells head's load that it reads every
// cluster whole (each is compared and replayed), so a large head is decoded once; a state
// check does not, and its load keeps a large tree's clusters as records.
func TestChangeReadsEveryCluster(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		base Source
		want bool
	}{
		{"state", Source{}, false},
		{"change from paths", Source{Paths: []string{dir}}, true},
		{"change from a revision", Source{Revision: "HEAD"}, true},
	} {
		g := &run{Request: Request{Head: Source{Paths: []string{dir}}, Base: tc.base}}
		opts, _ := g.headOptions(context.Background())
		if opts.Manifest.ReadsEveryCluster != tc.want {
			t.Errorf("%s: ReadsEveryCluster %v, want %v", tc.name, opts.Manifest.ReadsEveryCluster, tc.want)
		}
	}
}
