package gate

import (
	"context"
	"os"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// BenchmarkJudge judges the tree at BUTLER_CHECK_HEAD as a state check and, against
// BUTLER_CHECK_BASE, as a change check (bench/manifests.sh with KEEP writes a base; its
// pull request's edits make a head); skipped without them.
//
//	go test -run '^$' -bench Judge -cpuprofile cpu.out ./internal/cmd/check
func BenchmarkJudge(b *testing.B) {
	head, base := os.Getenv("BUTLER_CHECK_HEAD"), os.Getenv("BUTLER_CHECK_BASE")
	if head == "" || base == "" {
		b.Skip("BUTLER_CHECK_HEAD and BUTLER_CHECK_BASE are not set")
	}
	author := policy.Identity{Username: "dev0.team-00@example.com"}
	b.Run("state", func(b *testing.B) {
		for b.Loop() {
			if _, err := judge(context.Background(), nil, &flags{Manifests: []string{head}, Author: author}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("change", func(b *testing.B) {
		for b.Loop() {
			if _, err := judge(context.Background(), nil, &flags{Manifests: []string{head}, BaseManifests: []string{base}, Author: author}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
