package completion_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

// Three tiers: a platform-wide pin and default, a team allow-list on image, an environment
// recommendation on network (payments runs on Harvester: image and network fields only).
const policiesYAML = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ClusterCreationPolicy
metadata: {name: platform}
spec:
  scope: {platformWide: {}}
  options:
    image: {mode: pin, values: [base-image]}
    network: {mode: default, default: default/vlan-1}
    storageContainer: {mode: pin, values: [sc-1]}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ClusterCreationPolicy
metadata: {name: payments-images}
spec:
  scope: {team: {teamRef: {name: payments}}}
  options:
    image: {mode: allowList, values: [ubuntu-24, ubuntu-22]}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ClusterCreationPolicy
metadata: {name: payments-prod-network}
spec:
  scope: {teamAndEnvironment: {teamRef: {name: payments}, environmentName: prod}}
  options:
    network: {mode: recommended, values: [default/vlan-200], recommendedReason: the prod VLAN}
`

func policyStore(t *testing.T) func(context.Context, *factory.Factory) (store.Store, error) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "policies.yaml"), []byte(policiesYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(context.Context, *factory.Factory) (store.Store, error) {
		return offline.Load([]string{payments, dir}, nil, "", nil)
	}
}

func values(out string) []string {
	var v []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, ":") {
			v = append(v, line)
		}
	}
	return v
}

func TestPolicyNames(t *testing.T) {
	for _, verb := range []string{"get", "update", "delete"} {
		got := values(complete(t, butleradm.NewCmd, newFactory(policyStore(t)), "policy", verb, "payments-"))
		want := []string{"payments-images\tteam payments", "payments-prod-network\tteam payments, environment prod"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("policy %s payments-: %q, want %q", verb, got, want)
		}
	}
}

// TestOptionValuesFollowResolution: cluster create's option flags offer what the most
// specific rule for the cluster being typed allows, never a less specific tier's values.
func TestOptionValuesFollowResolution(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		// The team's allow-list replaces the platform pin.
		{[]string{"--team", "payments", "--image", ""}, []string{"ubuntu-22\tallowList of policy payments-images (team)", "ubuntu-24\tallowList of policy payments-images (team)"}},
		{[]string{"--team", "payments", "--image", "ubuntu-2"}, []string{"ubuntu-22\tallowList of policy payments-images (team)", "ubuntu-24\tallowList of policy payments-images (team)"}},
		// The environment's recommendation wins over the platform default in prod only.
		{[]string{"--team", "payments", "--environment", "prod", "--network", ""}, []string{"default/vlan-200\trecommended of policy payments-prod-network (teamAndEnvironment): the prod VLAN"}},
		{[]string{"--team", "payments", "--environment", "dev", "--network", ""}, []string{"default/vlan-1\tdefault of policy platform (platformWide)"}},
		// Harvester has no storage container field: nothing, though a policy pins one.
		{[]string{"--team", "payments", "--storage-container", ""}, nil},
		// Without a team there is no cluster to resolve for.
		{[]string{"--image", ""}, nil},
	}
	for _, c := range cases {
		args := append([]string{"cluster", "create", "web"}, c.args...)
		got := values(complete(t, butlerctl.NewCmd, newFactory(policyStore(t)), args...))
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
}

// TestOutputFormatsPerCommand: -o offers the formats the command declares, and nothing for
// a command that prints nothing to format.
func TestOutputFormatsPerCommand(t *testing.T) {
	get := values(complete(t, butleradm.NewCmd, newFactory(policyStore(t)), "policy", "get", "-o", ""))
	list := values(complete(t, butleradm.NewCmd, newFactory(policyStore(t)), "policy", "list", "-o", ""))
	has := func(vs []string, v string) bool {
		for _, x := range vs {
			if strings.HasPrefix(x, v+"\t") {
				return true
			}
		}
		return false
	}
	if has(get, "custom-columns=") || !has(get, "name") || !has(get, "jsonpath=") {
		t.Errorf("policy get -o: %q", get)
	}
	if !has(list, "custom-columns=") {
		t.Errorf("policy list -o: %q", list)
	}
	if got := values(complete(t, butleradm.NewCmd, newFactory(policyStore(t)), "webhook", "serve", "-o", "")); len(got) != 0 {
		t.Errorf("webhook serve -o: %q, want nothing", got)
	}
}
