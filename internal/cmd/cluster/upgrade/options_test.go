package upgrade

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: the version normalised; --wait on
// manifests is a usage error before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "--kubernetes-version", "1.32.0", "--dry-run")
	if r.Code != 0 || o == nil || o.Version != "v1.32.0" || !o.DryRun.Client() || o.Offline || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	o, r = cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{"payments"}}, "bob-checkout", "--team", "payments", "--kubernetes-version", "v1.32.0", "--wait")
	if r.Code != 2 || o != nil || !strings.Contains(r.Msg(), "need a live cluster") {
		t.Errorf("--wait on manifests: exit %d: %v", r.Code, r.Err)
	}
}

// run: a dry run prints the plan and writes nothing; a skipped minor is refused (exit 4)
// naming the supported path; with --yes the one field changes.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	args := func(v string, more ...string) []string {
		return append([]string{"bob-checkout", "--team", "payments", "--kubernetes-version", v}, more...)
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, args("v1.32.0", "--dry-run")...)
	if r.Code != 0 || !strings.Contains(r.Stdout, "would be upgraded: v1.31.0 -> v1.32.0 (dry run: nothing was sent)") || s.Clusters[0].Spec.KubernetesVersion != "v1.31.0" {
		t.Errorf("dry run: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, args("v1.33.0", "--yes")...)
	if r.Code != 4 || !strings.Contains(r.Stdout, "Supported path:    v1.31.0 -> v1.32.x -> v1.33.0") || s.Clusters[0].Spec.KubernetesVersion != "v1.31.0" {
		t.Errorf("skipped minor: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, args("v1.32.0")...); r.Code != 2 {
		t.Errorf("no --yes, no terminal: exit %d: %v", r.Code, r.Err)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, args("v1.32.0", "--yes")...)
	if r.Code != 0 || s.Clusters[0].Spec.KubernetesVersion != "v1.32.0" {
		t.Errorf("upgrade: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
}
