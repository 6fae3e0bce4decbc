package scale

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// What the command parsed and completed, through runF; a missing or zero --workers is a
// usage error before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "-w", "5")
	if r.Code != 0 || o == nil || o.Name != "bob-checkout" || o.Workers != 5 || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	for _, args := range [][]string{{"bob-checkout", "--team", "payments"}, {"bob-checkout", "--team", "payments", "-w", "0"}, {"bob-checkout", "-w", "2"}} {
		if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, args...); r.Code != 2 || o != nil {
			t.Errorf("%v: exit %d: %v", args, r.Code, r.Err)
		}
	}
}

// run scales within the quota, says unchanged for the same count, and refuses a count over
// the team's maxNodesPerCluster (exit 4, the server's message) without writing.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "-w", "3")
	if r.Code != 0 || !strings.Contains(r.Stdout, "unchanged: already 3 worker(s)") {
		t.Errorf("same count: exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "-w", "4")
	if r.Code != 0 || !strings.Contains(r.Stdout, "scaled: 3 -> 4 worker(s)") || s.Clusters[0].Spec.Workers.Replicas != 4 {
		t.Errorf("scale: exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	five := int32(5)
	s.Teams[0].Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxNodesPerCluster: &five}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "-w", "6")
	if r.Code != 4 || !strings.Contains(r.Msg(), "per-cluster node limit (5)") || s.Clusters[0].Spec.Workers.Replicas != 4 {
		t.Errorf("over the quota: exit %d: %v", r.Code, r.Err)
	}
}
