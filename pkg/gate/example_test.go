package gate_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/gate"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// A change check of a directory against a git revision: the working tree's manifests
// (head) are judged as a change from the tree the revision holds (base), as the author's
// requests. The repository here is made for the example: one commit of the worked example,
// then a pull request that adds carol's third cluster in dev, where each member may have two.
func ExampleRun() {
	repo, cleanup, err := exampleRepo()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cleanup()

	report, err := gate.Run(context.Background(), gate.Request{
		Head:   gate.Source{Paths: []string{filepath.Join(repo, "payments")}},
		Base:   gate.Source{Revision: "HEAD"},
		Repo:   repo,
		Author: policy.Identity{Username: "carol@example.com"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Mode, "check:", report.Errors, "error(s)")
	for _, f := range report.Findings {
		if f.Severity == "error" {
			fmt.Printf("%s:%d: %s %s/%s: %s\n", f.File, f.Line, f.Kind, f.Namespace, f.Name, f.Message)
		}
	}
	// Output:
	// change check: 1 error(s)
	// payments/clusters/carol-sandbox-3.yaml:10: TenantCluster payments/carol-sandbox-3: metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "carol@example.com" already owns 2 cluster(s) in environment "dev"; env limits to 2 per member
}

// exampleRepo is a git repository holding examples/payments in one commit, with a new
// cluster in the working tree.
func exampleRepo() (string, func(), error) {
	dir, err := os.MkdirTemp("", "gate-example-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	if err := os.CopyFS(filepath.Join(dir, "payments"), os.DirFS("../../examples/payments")); err != nil {
		cleanup()
		return "", nil, err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	clusters := filepath.Join(dir, "payments", "clusters")
	data, err := os.ReadFile(filepath.Join(clusters, "carol-sandbox-2.yaml"))
	if err == nil {
		err = os.WriteFile(filepath.Join(clusters, "carol-sandbox-3.yaml"), []byte(strings.ReplaceAll(string(data), "carol-sandbox-2", "carol-sandbox-3")), 0o644)
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}
