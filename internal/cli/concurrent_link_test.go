package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// TestConcurrentEditsThroughSymlinkedTrees: two manifest trees that share one directory
// through symlinks (a monorepo's team directory linked into two deployment trees) are
// edited at the same time, each run naming its own tree. The lock covers the directory
// the links lead to, so both edits land; locked by the names given, the runs did not see
// each other and one edit was lost in most rounds.
func TestConcurrentEditsThroughSymlinkedTrees(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bindir := builtBinaries(t)
	for round := range 10 {
		base := t.TempDir()
		shared := filepath.Join(base, "common", "payments")
		if err := copyDir(filepath.Join(root, "examples", "payments"), shared); err != nil {
			t.Fatal(err)
		}
		var trees []string
		for _, name := range []string{"deploy-a", "deploy-b"} {
			tree := filepath.Join(base, name)
			if err := os.MkdirAll(tree, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../common/payments", filepath.Join(tree, "payments")); err != nil {
				t.Fatal(err)
			}
			trees = append(trees, tree)
		}
		runs := [][]string{
			{"butleradm", "env", "update", "dev", "--team", "payments", "--description", fmt.Sprintf("round %d", round), "--as", "alice@example.com", "--manifests", trees[0]},
			{"butleradm", "env", "update", "prod", "--team", "payments", "--max-clusters", "7", "--as", "alice@example.com", "--manifests", trees[1]},
		}
		var wg sync.WaitGroup
		outs := make([]string, len(runs))
		errs := make([]error, len(runs))
		for i, args := range runs {
			wg.Go(func() {
				cmd := exec.Command(filepath.Join(bindir, args[0]), args[1:]...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				errs[i] = cmd.Run()
				outs[i] = out.String()
			})
		}
		wg.Wait()
		for i := range runs {
			if errs[i] != nil {
				t.Fatalf("round %d: %v: %v\n%s", round, runs[i], errs[i], outs[i])
			}
		}
		set, err := manifest.Load([]string{shared}, nil)
		if err != nil {
			t.Fatalf("round %d: the tree no longer loads: %v", round, err)
		}
		var dev string
		var prodMax int32
		for _, e := range set.Team("payments").Spec.Environments {
			switch e.Name {
			case "dev":
				dev = e.Description
			case "prod":
				if e.Limits != nil && e.Limits.MaxClusters != nil {
					prodMax = *e.Limits.MaxClusters
				}
			}
		}
		if dev != fmt.Sprintf("round %d", round) || prodMax != 7 {
			t.Fatalf("round %d: an edit was lost: dev description %q, prod maxClusters %d", round, dev, prodMax)
		}
	}
}
