package apply_test

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply/applyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

func adm(f *factory.Factory, runF func(*apply.Options) error) *cobra.Command {
	return apply.NewCmd(f, applyutil.Operator, runF)
}

func TestOperatorFlags(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	o, r := cmdtest.RunF(t, s, adm, factory.GlobalOptions{}, "-f", "a.yaml", "--dry-run=server")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if o.FieldManager != "butleradm" || o.Binary.Name != "butleradm" || !o.DryRun.Server() {
		t.Errorf("field manager %q, binary %q, dry run %q", o.FieldManager, o.Binary.Name, o.DryRun)
	}
	// Operator objects go one at a time, in order: there is no --concurrency to change it.
	if _, r := cmdtest.RunF(t, s, adm, factory.GlobalOptions{}, "-f", "a.yaml", "--concurrency", "8"); r.Code != cmdutil.ExitUsage {
		t.Errorf("--concurrency: exit %d (%v), want %d", r.Code, r.Err, cmdutil.ExitUsage)
	}
}

const newTeam = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: search
spec:
  displayName: Search
`

const raiseLimits = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: payments
spec:
  resourceLimits:
    maxClusters: 40
`

// One refusal in a batch (alice, a team admin, raising her team's limits: platform admins'
// to change) applies nothing, not even the team before it; olivia's same batch goes
// through, the new team created and payments updated with the file merged over it.
func TestOperatorBatchAllOrNothing(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	in := write(t, newTeam, raiseLimits)
	r := cmdtest.Run(t, s, cmdtest.Cmd(adm), factory.GlobalOptions{}, "", false, "-f", in)
	if r.Code != cmdutil.ExitDenied || !strings.Contains(r.Msg(), `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`) ||
		!strings.Contains(r.Msg(), "refused 1 of 2") {
		t.Fatalf("exit %d: %s", r.Code, r.Msg())
	}
	if s.Writes() != 0 {
		t.Fatalf("%d team writes after a refusal, want none", s.Writes())
	}

	s.ID.Username = "olivia@example.com"
	r = cmdtest.Run(t, s, cmdtest.Cmd(adm), factory.GlobalOptions{}, "", false, "-f", in)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := "team.butler.butlerlabs.dev/search created (applied.yaml)\nteam.butler.butlerlabs.dev/payments configured (applied.yaml)\n"
	if r.Stdout != want {
		t.Errorf("stdout %q, want %q", r.Stdout, want)
	}
	if len(s.Created) != 1 || len(s.Updated) != 1 {
		t.Fatalf("created %d, updated %d teams, want 1 and 1", len(s.Created), len(s.Updated))
	}
	if u := s.Updated[0]; u.Spec.ResourceLimits.MaxClusters == nil || *u.Spec.ResourceLimits.MaxClusters != 40 || u.Spec.DisplayName != "Payments" {
		t.Errorf("payments stored as %+v", u.Spec)
	}
}

// A policy is judged with the objects before it: it may name a team the batch creates,
// and two of one tier that conflict are refused.
func TestOperatorPolicyJudgedWithTheBatch(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	pol := func(name, team, mode string) string {
		return strings.NewReplacer("NAME", name, "TEAM", team, "MODE", mode).Replace(`apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ClusterCreationPolicy
metadata:
  name: NAME
spec:
  scope:
    team: {teamRef: {name: TEAM}}
  options:
    image: {mode: MODE, values: [ubuntu-24]}
`)
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(adm), factory.GlobalOptions{}, "", false, "-f",
		write(t, pol("a", "payments", "allowList"), pol("b", "payments", "pin")))
	if r.Code != cmdutil.ExitDenied || !strings.Contains(r.Msg(), `conflicts with ClusterCreationPolicy "a"`) || len(s.Policies) != 0 {
		t.Fatalf("exit %d, %d policies: %s", r.Code, len(s.Policies), r.Msg())
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(adm), factory.GlobalOptions{Output: "name"}, "", false, "-f",
		write(t, newTeam, pol("search-images", "search", "pin")))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Stdout != "team.butler.butlerlabs.dev/search\nclustercreationpolicy.butler.butlerlabs.dev/search-images\n" || len(s.Policies) != 1 {
		t.Errorf("stdout %q, %d policies", r.Stdout, len(s.Policies))
	}
}

const labProvider = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata:
  name: lab
spec:
  provider: harvester
  credentialsRef:
    name: lab-credentials
  harvester:
    endpoint: https://lab.example.com:6443
    namespace: default
    networkName: default/vlan-1
  scope:
    type: platform
`

// A ProviderConfig without its credentials Secret is refused, pointing at the commands
// that write credentials; with it, it is applied in its home namespace, and the Secret's
// values appear nowhere.
func TestOperatorProviderNeedsItsSecret(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	before := len(s.ProviderConfigs)
	in := write(t, labProvider)
	r := cmdtest.Run(t, s, cmdtest.Cmd(adm), factory.GlobalOptions{}, "", false, "-f", in)
	if r.Code != cmdutil.ExitDenied || !strings.Contains(r.Msg(), "Secret butler-system/lab-credentials, the ProviderConfig's credentials, does not exist") ||
		!strings.Contains(r.Msg(), "provider create") || !strings.Contains(r.Msg(), "rotate-credentials") {
		t.Fatalf("exit %d: %s", r.Code, r.Msg())
	}
	if len(s.ProviderConfigs) != before {
		t.Fatal("a refused ProviderConfig was stored")
	}
	s.Secrets = map[string]map[string][]byte{"butler-system/lab-credentials": {"kubeconfig": []byte("s3cret-value")}}
	r = cmdtest.Run(t, s, cmdtest.Cmd(adm), factory.GlobalOptions{Output: "yaml"}, "", false, "-f", in)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if strings.Contains(r.Stdout+r.Stderr, "s3cret") || !strings.Contains(r.Stdout, "namespace: butler-system") {
		t.Errorf("output:\n%s%s", r.Stdout, r.Stderr)
	}
	if len(s.ProviderConfigs) != before+1 || s.ProviderConfigs[before].Namespace != "butler-system" {
		t.Errorf("stored %+v", s.ProviderConfigs)
	}
}
