package create

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func exec(t *testing.T, as string, opts factory.GlobalOptions, args ...string) (*storetest.Store, cmdtest.Result) {
	t.Helper()
	s := storetest.Payments(t, as)
	return s, cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), opts, "", false, args...)
}

func TestCreateByPlatformAdmin(t *testing.T) {
	s, r := exec(t, "olivia@example.com", factory.GlobalOptions{},
		"checkout", "--display-name", "Checkout", "--description", "Checkout services",
		"--access-user", "Alice@Example.com:admin", "--access-user", "bob@example.com:operator",
		"--access-group", "checkout-devs:viewer:okta", "--provider", "harvester-prod",
		"--max-clusters", "10", "--max-memory", "512Gi")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stdout != "team.butler.butlerlabs.dev/checkout created (teams/checkout.yaml)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	if r.Stderr != "" {
		t.Errorf("stderr %q", r.Stderr)
	}
	if len(s.Created) != 1 {
		t.Fatalf("created %d teams", len(s.Created))
	}
	team := s.Created[0]
	if team.APIVersion != v1alpha1.APIVersion || team.Kind != "Team" || team.Name != "checkout" {
		t.Errorf("meta %+v %+v", team.TypeMeta, team.ObjectMeta)
	}
	sp := team.Spec
	if sp.DisplayName != "Checkout" || sp.Description != "Checkout services" || sp.ProviderConfigRef.Name != "harvester-prod" {
		t.Errorf("spec %+v", sp)
	}
	if len(sp.Access.Users) != 2 || sp.Access.Users[0].Name != "alice@example.com" || sp.Access.Users[0].Role != "admin" {
		t.Errorf("users %+v", sp.Access.Users)
	}
	if len(sp.Access.Groups) != 1 || sp.Access.Groups[0] != (v1alpha1.TeamGroup{Name: "checkout-devs", Role: "viewer", IdentityProvider: "okta"}) {
		t.Errorf("groups %+v", sp.Access.Groups)
	}
	rl := sp.ResourceLimits
	if rl == nil || *rl.MaxClusters != 10 || rl.MaxMemory.String() != "512Gi" || rl.MaxCPUCores != nil || rl.MaxNodesPerCluster != nil {
		t.Errorf("limits %+v", rl)
	}
}

func TestLimitsByNonAdminDenied(t *testing.T) {
	s, r := exec(t, "alice@example.com", factory.GlobalOptions{}, "checkout", "--access-user", "alice@example.com:admin", "--max-clusters", "3")
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `spec.resourceLimits may only be set by platform admins; user "alice@example.com" is not a platform admin`; r.Msg() != want {
		t.Errorf("message %q, want %q", r.Msg(), want)
	}
	if s.Writes() != 0 {
		t.Error("a denied create wrote")
	}
}

func TestWithoutLimitsAnyoneMayCreate(t *testing.T) {
	s, r := exec(t, "alice@example.com", factory.GlobalOptions{}, "checkout", "--access-user", "alice@example.com:admin")
	if r.Code != 0 || len(s.Created) != 1 || s.Created[0].Spec.ResourceLimits != nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"Checkout"}, `invalid team name "Checkout"`},
		{[]string{"check_out"}, `invalid team name "check_out"`},
		{[]string{strings.Repeat("a", 64)}, "invalid team name"},
		{[]string{"x", "--access-user", "a@x:boss"}, `unknown role "boss"`},
		{[]string{"x", "--access-user", "a@x:admin", "--access-user", "a@x:viewer"}, `"a@x" is given more than once`},
		{[]string{"x", "--access-group", "devs"}, "want NAME:ROLE[:IDENTITY-PROVIDER]"},
		{[]string{"x", "--max-clusters", "-1"}, "--max-clusters must be 0 or more, got -1"},
		{[]string{"x", "--max-cpu", "many"}, `--max-cpu: "many" is not a quantity`},
		{[]string{"x", "--max-nodes-per-cluster", "two"}, `invalid argument "two" for "--max-nodes-per-cluster"`},
		{[]string{"x", "--provider", "Bad_Name"}, `--provider "Bad_Name"`},
		{[]string{}, "requires a team NAME"},
	} {
		s, r := exec(t, "olivia@example.com", factory.GlobalOptions{}, c.args...)
		if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, r.Code, r.Msg(), c.want)
		}
		if s.Writes() != 0 {
			t.Errorf("%v: wrote", c.args)
		}
	}
}

func TestNoIdentity(t *testing.T) {
	_, r := exec(t, "", factory.GlobalOptions{}, "checkout")
	if r.Code != cmdutil.ExitUsage {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
}

func TestAlreadyExists(t *testing.T) {
	for _, dry := range []bool{false, true} {
		args := []string{"payments"}
		if dry {
			args = append(args, "--dry-run")
		}
		s, r := exec(t, "olivia@example.com", factory.GlobalOptions{}, args...)
		if r.Code != cmdutil.ExitFailure || !strings.Contains(r.Msg(), `"payments" already exists`) {
			t.Errorf("dry-run %v: exit %d, %v", dry, r.Code, r.Err)
		}
		if s.Writes() != 0 {
			t.Error("wrote")
		}
	}
}

func TestDryRunPrintsWithoutWriting(t *testing.T) {
	s, r := exec(t, "olivia@example.com", factory.GlobalOptions{Output: "yaml"},
		"checkout", "--access-user", "alice@example.com:admin", "--max-cpu", "64", "--dry-run")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	want := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: checkout
spec:
  access:
    users:
    - name: alice@example.com
      role: admin
  resourceLimits:
    maxCPUCores: "64"
`
	if r.Stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.Stdout, want)
	}
	if s.Writes() != 0 {
		t.Error("dry run wrote")
	}
	_, r = exec(t, "olivia@example.com", factory.GlobalOptions{}, "checkout", "--dry-run")
	if r.Stdout != "team.butler.butlerlabs.dev/checkout created (dry run)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	_, r = exec(t, "olivia@example.com", factory.GlobalOptions{Output: "name"}, "checkout")
	if r.Stdout != "team.butler.butlerlabs.dev/checkout\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	_, r = exec(t, "olivia@example.com", factory.GlobalOptions{Output: "wide"}, "checkout")
	if r.Code != cmdutil.ExitUsage {
		t.Errorf("-o wide: exit %d", r.Code)
	}
}

func TestMissingProviderWarns(t *testing.T) {
	s, r := exec(t, "olivia@example.com", factory.GlobalOptions{}, "checkout", "--provider", "nutanix-lab")
	if r.Code != 0 || len(s.Created) != 1 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `warning: ProviderConfig "nutanix-lab" not found in butler-system or checkout`; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr %q", r.Stderr)
	}
}
