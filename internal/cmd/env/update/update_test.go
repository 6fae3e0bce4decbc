package update

import (
	"reflect"
	"strings"
	"testing"

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

// execLive is exec on a live store, where the server's RBAC (not the documents) decides
// who may write the team at all, so the webhook's rules are what is left to refuse.
func execLive(t *testing.T, as string, args ...string) (*storetest.Store, cmdtest.Result) {
	t.Helper()
	return cmdtest.Payments(t, as, true, NewCmd, args...)
}

func i32(v int32) *int32 { return &v }

// env returns the environment name of the last written team.
func env(t *testing.T, s *storetest.Store, name string) *v1alpha1.EnvironmentSpec {
	t.Helper()
	if len(s.Updated) != 1 {
		t.Fatalf("%d updates", len(s.Updated))
	}
	team := s.Updated[0]
	e := team.Environment(name)
	if e == nil {
		t.Fatalf("no environment %q", name)
	}
	return e
}

func TestUpdateCapsByTeamAdmin(t *testing.T) {
	s, r := exec(t, "alice@example.com", "prod", "--team", "payments", "--max-clusters", "8", "--max-clusters-per-member", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stdout != "environment \"prod\" updated on team payments (team.yaml)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	e := env(t, s, "prod")
	if !reflect.DeepEqual(e.Limits, &v1alpha1.EnvironmentLimits{MaxClusters: i32(8)}) {
		t.Errorf("limits %+v", e.Limits)
	}
	// The rest of prod and the other environment are untouched.
	before := storetest.Payments(t, "").Teams[0]
	if !reflect.DeepEqual(e.Access, before.Environment("prod").Access) || !reflect.DeepEqual(e.ClusterDefaults, before.Environment("prod").ClusterDefaults) ||
		e.Description != before.Environment("prod").Description || !reflect.DeepEqual(*env(t, s, "dev"), *before.Environment("dev")) {
		t.Error("update changed more than the limits")
	}
}

func TestZeroCapsRemoveTheBlock(t *testing.T) {
	s, r := exec(t, "alice@example.com", "dev", "--team", "payments", "--max-clusters-per-member", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if e := env(t, s, "dev"); e.Limits != nil {
		t.Errorf("limits %+v", e.Limits)
	}
}

func TestEmptyValuesClear(t *testing.T) {
	s, r := exec(t, "alice@example.com", "prod", "--team", "payments",
		"--cluster-default", "workerCount=", "--cluster-default", "workerCPU=8",
		"--access-user", "bob@example.com:", "--access-user", "carol@example.com:operator",
		"--description", "")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	e := env(t, s, "prod")
	if e.Description != "" {
		t.Errorf("description %q", e.Description)
	}
	if !reflect.DeepEqual(e.ClusterDefaults, &v1alpha1.ClusterDefaults{WorkerCPU: i32(8), WorkerMemoryGi: i32(8)}) {
		t.Errorf("defaults %+v", e.ClusterDefaults)
	}
	if !reflect.DeepEqual(e.Access, &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "carol@example.com", Role: "operator"}}}) {
		t.Errorf("access %+v", e.Access)
	}
}

func TestClearFlags(t *testing.T) {
	s, r := exec(t, "alice@example.com", "prod", "--team", "payments", "--clear-limits", "--clear-cluster-defaults", "--clear-access")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	e := env(t, s, "prod")
	if e.Limits != nil || e.ClusterDefaults != nil || e.Access != nil || e.Description == "" {
		t.Errorf("got %+v", e)
	}
	// Clear, then set: the block is replaced.
	s, r = exec(t, "alice@example.com", "prod", "--team", "payments", "--clear-limits", "--max-clusters-per-member", "3")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if e := env(t, s, "prod"); !reflect.DeepEqual(e.Limits, &v1alpha1.EnvironmentLimits{MaxClustersPerMember: i32(3)}) {
		t.Errorf("limits %+v", e.Limits)
	}
}

func TestCaseInsensitiveName(t *testing.T) {
	s, r := exec(t, "alice@example.com", "PROD", "--team", "payments", "--description", "Live")
	if r.Code != 0 || env(t, s, "prod").Description != "Live" {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
}

func TestOperatorChangingCapsDenied(t *testing.T) {
	// bob is admin of prod through its access, but only team admins may change caps.
	s, r := execLive(t, "bob@example.com", "prod", "--team", "payments", "--max-clusters", "10")
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`; r.Msg() != want {
		t.Errorf("message %q", r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
	// Without caps, an operator's change passes the Team rules.
	s, r = execLive(t, "bob@example.com", "prod", "--team", "payments", "--description", "Live")
	if r.Code != 0 || s.Writes() != 1 {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

func TestAccessNamingStrangerDenied(t *testing.T) {
	s, r := exec(t, "alice@example.com", "dev", "--team", "payments", "--access-user", "mallory@example.com:operator")
	if want := `spec.environments[0].access.users["mallory@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`; r.Code != cmdutil.ExitDenied || r.Msg() != want {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestNothingToUpdate(t *testing.T) {
	s, r := exec(t, "alice@example.com", "prod", "--team", "payments")
	if r.Code != cmdutil.ExitUsage || r.Msg() != NothingToUpdate {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestUnchanged(t *testing.T) {
	s, r := exec(t, "alice@example.com", "prod", "--team", "payments", "--max-clusters", "6", "--access-user", "mallory@example.com:")
	if r.Code != 0 || s.Writes() != 0 || r.Stdout != "environment \"prod\" on team payments unchanged\n" {
		t.Errorf("exit %d, %q, %d writes", r.Code, r.Stdout, s.Writes())
	}
}

func TestNotFound(t *testing.T) {
	_, r := exec(t, "alice@example.com", "staging", "--team", "payments", "--description", "x")
	if r.Code != cmdutil.ExitNotFound || r.Msg() != `environment "staging" not found on team "payments" (environments: dev, prod)` {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prod.", "--team", "payments", "--description", "x"}, `environment name "prod." must start and end with an alphanumeric character`},
		{[]string{"prod", "--description", "x"}, "--team is required"},
		{[]string{"prod", "--team", "payments", "--max-clusters-per-member", "-2"}, "--max-clusters-per-member must be 0 or more (0 = no cap), got -2"},
		{[]string{"prod", "--team", "payments", "--cluster-default", "workerCPU=0"}, "workerCPU must be at least 1"},
		{[]string{"prod", "--team", "payments", "--access-group", "devs:lead"}, `unknown role "lead"`},
	} {
		s, r := exec(t, "alice@example.com", c.args...)
		if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", c.args, r.Code, r.Msg(), c.want)
		}
		if s.Writes() != 0 {
			t.Errorf("%q: wrote", c.args)
		}
	}
}

// Someone else changes the team between the read and the write: the patch answers
// Conflict, the command reads the team again and applies its change to that, so both
// edits are kept.
func TestConcurrentEditIsKept(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Interfere = func(team *v1alpha1.Team) { team.Environment("dev").Description = "edited meanwhile" }
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "prod", "--team", "payments", "--max-clusters", "8")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if s.Conflicts != 1 || len(s.Updated) != 1 {
		t.Fatalf("%d conflicts, %d updates; want 1, 1", s.Conflicts, len(s.Updated))
	}
	team := s.Updated[0]
	if team.Environment("dev").Description != "edited meanwhile" {
		t.Error("the other edit was overwritten")
	}
	if l := team.Environment("prod").Limits; l == nil || l.MaxClusters == nil || *l.MaxClusters != 8 {
		t.Errorf("this edit was lost: %+v", l)
	}
}

// The other edit removed the environment: the retry reports it missing.
func TestConcurrentDeleteIsNotFound(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Interfere = func(team *v1alpha1.Team) { team.Spec.Environments = team.Spec.Environments[:1] } // dev only
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "prod", "--team", "payments", "--max-clusters", "8")
	if r.Code != cmdutil.ExitNotFound || r.Msg() != `environment "prod" not found on team "payments" (environments: dev)` || s.Writes() != 0 {
		t.Errorf("exit %d, %q, %d writes", r.Code, r.Msg(), s.Writes())
	}
}
