package create

import (
	"encoding/json"
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

func TestCreateByTeamAdmin(t *testing.T) {
	s, r := exec(t, "alice@example.com", "staging", "--team", "payments", "--description", "Pre-production",
		"--max-clusters", "4", "--max-clusters-per-member", "0",
		"--cluster-default", "kubernetesVersion=1.31.2", "--cluster-default", "workerCount=2",
		"--cluster-default", "defaultAddons=cert-manager,metrics-server",
		"--access-user", "carol@example.com:admin")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stdout != "environment \"staging\" created on team payments (team.yaml)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	if len(s.Updated) != 1 {
		t.Fatalf("%d updates", len(s.Updated))
	}
	envs := s.Updated[0].Spec.Environments
	if len(envs) != 3 || envs[0].Name != "dev" || envs[1].Name != "prod" {
		t.Fatalf("environments %+v", envs)
	}
	want := v1alpha1.EnvironmentSpec{
		Name:        "staging",
		Description: "Pre-production",
		Limits:      &v1alpha1.EnvironmentLimits{MaxClusters: i32(4)},
		Access:      &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "carol@example.com", Role: "admin"}}},
		ClusterDefaults: &v1alpha1.ClusterDefaults{
			KubernetesVersion: "v1.31.2", WorkerCount: i32(2), DefaultAddons: []string{"cert-manager", "metrics-server"},
		},
	}
	if !reflect.DeepEqual(envs[2], want) {
		t.Errorf("got %+v\nwant %+v", envs[2], want)
	}
}

func TestZeroCapsOmitLimits(t *testing.T) {
	s, r := execLive(t, "bob@example.com", "qa", "--team", "payments", "--max-clusters", "0", "--max-clusters-per-member", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if e := s.Updated[0].Spec.Environments[2]; e.Limits != nil || e.Access != nil || e.ClusterDefaults != nil {
		t.Errorf("got %+v", e)
	}
}

func TestOperatorSettingCapsDenied(t *testing.T) {
	s, r := exec(t, "bob@example.com", "qa", "--team", "payments", "--max-clusters", "2")
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`; r.Msg() != want {
		t.Errorf("message %q", r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestAccessNamingStrangerDenied(t *testing.T) {
	s, r := exec(t, "alice@example.com", "qa", "--team", "payments", "--access-user", "mallory@example.com:admin")
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `spec.environments[2].access.users["mallory@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`; r.Msg() != want {
		t.Errorf("message %q", r.Msg())
	}
	_, r = exec(t, "alice@example.com", "qa", "--team", "payments", "--access-group", "devs:operator")
	if want := `spec.environments[2].access.groups["devs"] is not a team group; env access is additive only and cannot introduce groups absent from spec.access.groups`; r.Code != cmdutil.ExitDenied || r.Msg() != want {
		t.Errorf("exit %d, message %q", r.Code, r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestDuplicate(t *testing.T) {
	s, r := exec(t, "alice@example.com", "prod", "--team", "payments")
	if r.Code != cmdutil.ExitFailure || r.Msg() != `environment "prod" already exists on team payments` {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
	_, r = exec(t, "alice@example.com", "Prod", "--team", "payments")
	if want := `environment "Prod" already exists on team payments as "prod" (environment names are compared case-insensitively)`; r.Code != cmdutil.ExitFailure || r.Msg() != want {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-qa", "--team", "payments"}, `unknown shorthand flag`},
		{[]string{"qa-", "--team", "payments"}, `environment name "qa-" must start and end with an alphanumeric character`},
		{[]string{"q a", "--team", "payments"}, `environment name "q a" contains invalid character " "`},
		{[]string{strings.Repeat("e", 64), "--team", "payments"}, "exceeds 63 characters"},
		{[]string{"", "--team", "payments"}, "environment name is required"},
		{[]string{"qa"}, "--team is required"},
		{[]string{"qa", "--team", "payments", "--max-clusters", "-1"}, "--max-clusters must be 0 or more (0 = no cap), got -1"},
		{[]string{"qa", "--team", "payments", "--cluster-default", "workerDiskGi=5"}, "workerDiskGi must be at least 10"},
		{[]string{"qa", "--team", "payments", "--cluster-default", "workerCount="}, "the value is empty"},
		{[]string{"qa", "--team", "payments", "--access-user", "carol@example.com:"}, "a role is required"},
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

func TestUnknownTeam(t *testing.T) {
	_, r := exec(t, "alice@example.com", "qa", "--team", "billing")
	if r.Code != cmdutil.ExitNotFound {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

func TestFirstEnvironmentNotesUnlabelledClusters(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Teams[0].Spec.Environments = nil
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "dev", "--team", "payments")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := "note: team payments had no environments: its clusters without an environment label (1) keep working, but new clusters must name an environment\n"; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr %q", r.Stderr)
	}
}

// -o json prints the Team as written (the API object, docs/output.md), the new
// environment in it; jsonpath picks the environment out.
func TestJSONOutput(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "json"}, "", false, "qa", "--team", "payments", "--max-clusters", "2")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	var got v1alpha1.Team
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("stdout is not a Team: %v\n%s", err, r.Stdout)
	}
	if got.Kind != v1alpha1.KindTeam || got.APIVersion != v1alpha1.APIVersion || got.Name != "payments" {
		t.Errorf("printed %s %s %s, want the Team payments", got.APIVersion, got.Kind, got.Name)
	}
	envs := got.Spec.Environments
	if n := len(envs); n != 3 || envs[2].Name != "qa" || envs[2].Limits == nil || envs[2].Limits.MaxClusters == nil || *envs[2].Limits.MaxClusters != 2 {
		t.Errorf("environments %+v", envs)
	}

	s = storetest.Payments(t, "alice@example.com")
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: `jsonpath={.spec.environments[?(@.name=="qa")].limits.maxClusters}`}, "", false, "qa", "--team", "payments", "--max-clusters", "2")
	if r.Code != 0 || r.Stdout != "2" {
		t.Errorf("jsonpath: exit %d (%v), stdout %q", r.Code, r.Err, r.Stdout)
	}
}

// Someone else adds an environment between the read and the write: both are kept.
func TestConcurrentEditIsKept(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Interfere = func(team *v1alpha1.Team) {
		team.Spec.Environments = append(team.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa"})
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "staging", "--team", "payments")
	if r.Code != 0 || s.Conflicts != 1 || len(s.Updated) != 1 {
		t.Fatalf("exit %d (%v), %d conflicts, %d updates", r.Code, r.Err, s.Conflicts, len(s.Updated))
	}
	var names []string
	for _, e := range s.Updated[0].Spec.Environments {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "dev,prod,qa,staging" {
		t.Errorf("environments %v", names)
	}
}

// Someone else creates the same environment meanwhile: the retry sees it and refuses.
func TestConcurrentSameNameRefused(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Interfere = func(team *v1alpha1.Team) {
		team.Spec.Environments = append(team.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "Staging"})
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "staging", "--team", "payments")
	if r.Code != cmdutil.ExitFailure || s.Writes() != 0 ||
		r.Msg() != `environment "staging" already exists on team payments as "Staging" (environment names are compared case-insensitively)` {
		t.Errorf("exit %d, %q, %d writes", r.Code, r.Msg(), s.Writes())
	}
}
