package setlimits

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func exec(t *testing.T, as string, args ...string) (*storetest.Store, cmdtest.Result) {
	t.Helper()
	return cmdtest.Payments(t, as, false, NewCmd, args...)
}

func TestSetLimitsAsPlatformAdmin(t *testing.T) {
	s, r := exec(t, "olivia@example.com", "payments", "--max-nodes-per-cluster", "5", "--max-cpu", "64", "--max-memory", "256Gi", "--max-storage", "2Ti")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stdout != "team.butler.butlerlabs.dev/payments limits updated (team.yaml)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	if len(s.Updated) != 1 {
		t.Fatalf("%d updates", len(s.Updated))
	}
	rl := s.Updated[0].Spec.ResourceLimits
	// maxClusters: 20 was there and stays.
	if *rl.MaxClusters != 20 || *rl.MaxNodesPerCluster != 5 || rl.MaxTotalNodes != nil ||
		rl.MaxCPUCores.String() != "64" || rl.MaxMemory.String() != "256Gi" || rl.MaxStorage.String() != "2Ti" {
		t.Errorf("limits %+v", rl)
	}
	// Nothing else of the team changed.
	before := storetest.Payments(t, "").Teams[0]
	after := s.Updated[0]
	after.Spec.ResourceLimits = before.Spec.ResourceLimits
	if !equalTeams(before, after) {
		t.Error("set-limits changed more than resourceLimits")
	}
}

func TestSetLimitsDeniedForTeamAdmin(t *testing.T) {
	s, r := exec(t, "alice@example.com", "payments", "--max-clusters", "25")
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`; r.Msg() != want {
		t.Errorf("message %q", r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestClear(t *testing.T) {
	s, r := exec(t, "olivia@example.com", "payments", "--clear")
	if r.Code != 0 || len(s.Updated) != 1 || s.Updated[0].Spec.ResourceLimits != nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	// Clearing twice: nothing to write.
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "payments", "--clear")
	if r.Code != 0 || len(s.Updated) != 1 || r.Stdout != "team.butler.butlerlabs.dev/payments unchanged\n" {
		t.Errorf("second clear: exit %d, %q, %d updates", r.Code, r.Stdout, len(s.Updated))
	}
}

func TestSameValueIsUnchanged(t *testing.T) {
	s, r := exec(t, "olivia@example.com", "payments", "--max-clusters", "20")
	if r.Code != 0 || s.Writes() != 0 || !strings.Contains(r.Stdout, "unchanged") {
		t.Errorf("exit %d, %q, %d writes", r.Code, r.Stdout, s.Writes())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"payments"}, "nothing to change: pass --max-clusters, --max-nodes-per-cluster, --max-total-nodes, --max-cpu, --max-memory, --max-storage, or --clear"},
		{[]string{"payments", "--max-clusters", "-3"}, "--max-clusters must be 0 or more, got -3"},
		{[]string{"payments", "--max-total-nodes=-1"}, "--max-total-nodes must be 0 or more, got -1"},
		{[]string{"payments", "--max-memory", "-1Gi"}, `--max-memory must be 0 or more, got "-1Gi"`},
		{[]string{"payments", "--max-memory", "lots"}, `--max-memory: "lots" is not a quantity such as 256Gi`},
		{[]string{"payments", "--clear", "--max-cpu", "4"}, "--clear removes every limit; it cannot be combined with --max-cpu"},
	} {
		s, r := exec(t, "olivia@example.com", c.args...)
		if r.Code != cmdutil.ExitUsage || r.Msg() != c.want {
			t.Errorf("%v: exit %d, %q; want exit 2, %q", c.args, r.Code, r.Msg(), c.want)
		}
		if s.Writes() != 0 {
			t.Errorf("%v: wrote", c.args)
		}
	}
}

func TestUnknownTeam(t *testing.T) {
	_, r := exec(t, "olivia@example.com", "billing", "--max-clusters", "1")
	if r.Code != cmdutil.ExitNotFound {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

func equalTeams(a, b v1alpha1.Team) bool { return equality.Semantic.DeepEqual(a, b) }

// Someone else changes another limit between the read and the write: the command applies
// its own to a fresh read, so both are kept.
func TestConcurrentEditIsKept(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	s.Interfere = func(team *v1alpha1.Team) {
		if team.Spec.ResourceLimits == nil {
			team.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{}
		}
		n := int32(42)
		team.Spec.ResourceLimits.MaxTotalNodes = &n
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "payments", "--max-nodes-per-cluster", "5")
	if r.Code != 0 || s.Conflicts != 1 || len(s.Updated) != 1 {
		t.Fatalf("exit %d (%v), %d conflicts, %d updates", r.Code, r.Err, s.Conflicts, len(s.Updated))
	}
	l := s.Updated[0].Spec.ResourceLimits
	if l == nil || l.MaxTotalNodes == nil || *l.MaxTotalNodes != 42 || l.MaxNodesPerCluster == nil || *l.MaxNodesPerCluster != 5 {
		t.Errorf("limits %+v", l)
	}
}
