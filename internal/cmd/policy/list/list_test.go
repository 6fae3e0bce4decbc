package list

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// withPolicies is the worked example with a platform-wide and a team policy on images.
func withPolicies(t *testing.T) *storetest.Store {
	t.Helper()
	s := storetest.Payments(t, "bob@example.com")
	for _, doc := range []string{
		`{apiVersion: butler.butlerlabs.dev/v1alpha1, kind: ClusterCreationPolicy, metadata: {name: platform-images}, spec: {scope: {platformWide: {}}, options: {image: {mode: allowList, values: [ubuntu-22, ubuntu-24]}}}}`,
		`{apiVersion: butler.butlerlabs.dev/v1alpha1, kind: ClusterCreationPolicy, metadata: {name: payments-images}, spec: {scope: {team: {teamRef: {name: payments}}}, options: {image: {mode: allowList, values: [ubuntu-24]}}}}`,
	} {
		var p v1alpha1.ClusterCreationPolicy
		if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
			t.Fatal(err)
		}
		s.Policies = append(s.Policies, p)
	}
	return s
}

// What each binary's command parsed and completed, through runF.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, withPolicies(t), NewCmd, factory.GlobalOptions{}, "--team", "payments", "--environment", "prod")
	if r.Code != 0 || o == nil || o.Admin || o.Target.Team != "payments" || o.Target.Environment != "prod" || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	o, r = cmdtest.RunF(t, withPolicies(t), NewAdminCmd, factory.GlobalOptions{})
	if r.Code != 0 || o == nil || !o.Admin {
		t.Errorf("admin: exit %d: %v; %+v", r.Code, r.Err, o)
	}
	if _, r := cmdtest.RunF(t, withPolicies(t), NewAdminCmd, factory.GlobalOptions{}, "--team", "payments"); r.Code != 2 {
		t.Errorf("butleradm's list takes no --team: exit %d", r.Code)
	}
}

// --environment without --team is a usage error before anything is read.
func TestValidateEnvironmentNeedsTeam(t *testing.T) {
	o, r := cmdtest.RunF(t, withPolicies(t), NewCmd, factory.GlobalOptions{}, "--environment", "prod")
	if r.Code != 2 || o != nil || r.Msg() != "--environment needs --team" {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

// run: the team's policy wins over the platform's and says so; butleradm lists both.
func TestRun(t *testing.T) {
	s := withPolicies(t)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if r.Code != 0 || !strings.Contains(r.Stdout, "image    payments-images   team   allowList   ubuntu-24   -         platform-images (platformWide)") {
		t.Errorf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewAdminCmd), factory.GlobalOptions{Output: "name"}, "", false)
	want := "clustercreationpolicy.butler.butlerlabs.dev/platform-images\nclustercreationpolicy.butler.butlerlabs.dev/payments-images\n"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("admin -o name: exit %d: %v\n%q", r.Code, r.Err, r.Stdout)
	}
}
