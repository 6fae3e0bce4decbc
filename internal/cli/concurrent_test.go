package cli_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// TestConcurrentOfflineWrites runs the real binaries (builtBinaries) at the same time on
// one manifests tree, 20 rounds of six runs each:
//
//   - two `butleradm env update` of different environments of one Team: both edits land;
//   - two `butlerctl cluster create --write` of the same name: one is created, the other
//     refused;
//   - two creates of different names by one member with one slot left under prod's
//     maxClustersPerMember: one is created, the other refused.
//
// Without the lock, the two updates read the same file and the second write loses the
// first's edit, and both creates pass their checks on what they read.
func TestConcurrentOfflineWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 120 processes")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bindir := builtBinaries(t)
	for round := range 20 {
		dir := filepath.Join(t.TempDir(), "payments")
		if err := copyDir(filepath.Join(root, "examples", "payments"), dir); err != nil {
			t.Fatal(err)
		}
		runs := [][]string{
			{"butleradm", "env", "update", "dev", "--team", "payments", "--description", fmt.Sprintf("round %d", round), "--as", "alice@example.com"},
			{"butleradm", "env", "update", "prod", "--team", "payments", "--max-clusters", "7", "--as", "alice@example.com"},
			{"butlerctl", "cluster", "create", "same", "--team", "payments", "--environment", "prod", "--write", "--as", "carol@example.com"},
			{"butlerctl", "cluster", "create", "same", "--team", "payments", "--environment", "prod", "--write", "--as", "carol@example.com"},
			{"butlerctl", "cluster", "create", "alice-a", "--team", "payments", "--environment", "prod", "--write", "--as", "alice@example.com"},
			{"butlerctl", "cluster", "create", "alice-b", "--team", "payments", "--environment", "prod", "--write", "--as", "alice@example.com"},
		}
		codes := make([]int, len(runs))
		outs := make([]string, len(runs))
		var wg sync.WaitGroup
		for i, args := range runs {
			wg.Go(func() {
				cmd := exec.Command(filepath.Join(bindir, args[0]), append(args[1:], "--manifests", dir)...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				outs[i] = out.String()
				if ee, ok := err.(*exec.ExitError); ok {
					codes[i] = ee.ExitCode()
				} else if err != nil {
					codes[i] = -1
					outs[i] += err.Error()
				}
			})
		}
		wg.Wait()
		for i := range 2 {
			if codes[i] != 0 {
				t.Fatalf("round %d: %s: exit %d\n%s", round, strings.Join(runs[i], " "), codes[i], outs[i])
			}
		}
		if ok := (codes[2] == 0) != (codes[3] == 0); !ok {
			t.Errorf("round %d: two creates of one name: exits %d and %d, want one 0\n%s\n%s", round, codes[2], codes[3], outs[2], outs[3])
		}
		if ok := (codes[4] == 0) != (codes[5] == 0); !ok {
			t.Errorf("round %d: creates past alice's cap of 1 in prod: exits %d and %d, want one 0\n%s\n%s", round, codes[4], codes[5], outs[4], outs[5])
		}

		set, err := manifest.Load([]string{dir}, nil)
		if err != nil {
			t.Fatalf("round %d: the tree no longer loads: %v", round, err)
		}
		team := set.Team("payments")
		var dev, prod string
		var prodMax int32
		for _, e := range team.Spec.Environments {
			switch e.Name {
			case "dev":
				dev = e.Description
			case "prod":
				prod = e.Name
				if e.Limits != nil && e.Limits.MaxClusters != nil {
					prodMax = *e.Limits.MaxClusters
				}
			}
		}
		if dev != fmt.Sprintf("round %d", round) || prod == "" || prodMax != 7 {
			t.Errorf("round %d: an update was lost: dev description %q, prod maxClusters %d", round, dev, prodMax)
		}
		n := map[string]int{}
		tcs, err := set.TenantClusters()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tcs {
			if c.Labels["butler.butlerlabs.dev/environment"] == "prod" {
				n[c.Annotations["butler.butlerlabs.dev/creator-email"]]++
			}
		}
		if n["carol@example.com"] != 1 || n["alice@example.com"] != 1 {
			t.Errorf("round %d: prod clusters per creator %v, want carol 1 and alice 1", round, n)
		}
		if t.Failed() {
			return
		}
	}
}
