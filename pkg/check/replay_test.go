package check

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// TestReplayTallyMatchesFull holds the replay with its running tally to the same findings
// as counting every earlier sibling for every cluster, on random trees with caps near
// their usage (clusters, nodes, CPU, memory, storage, environment, per member, the
// ProviderConfig's), owners differing in case and environment labels in other case.
func TestReplayTallyMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	refused := 0
	for i := 0; i < 200; i++ {
		set := randomTree(t, rng)
		tr := newTree(set, false)
		existing := i%2 == 1 // a change check's clusters count when refused; a state check's do not
		fast, fastRefused := tr.replay(tr.clusters, false, existing, nil)
		full, fullRefused := tr.replay(tr.clusters, true, existing, nil)
		if !reflect.DeepEqual(fast, full) || !reflect.DeepEqual(fastRefused, fullRefused) {
			t.Fatalf("tree %d: the tally's findings differ from the full count's:\nfast %+v\nfull %+v", i, fast, full)
		}
		for _, f := range full {
			if f.Over != "" {
				refused++
			}
		}
	}
	if refused < 50 {
		t.Errorf("only %d aggregate refusals in the random trees: the caps are not near enough to test the tally", refused)
	}
}

func randomTree(t *testing.T, rng *rand.Rand) *manifest.Set {
	t.Helper()
	text := randomTreeText(rng)
	set, err := manifest.LoadFiles([]manifest.File{{Name: "tree.yaml", Data: []byte(text)}}, manifest.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return set
}

// randomTreeText is a ProviderConfig, a Team and 4 to 13 of its clusters, with limits near
// what the clusters use.
func randomTreeText(rng *rand.Rand) string {
	lim := func(name string, max int) string {
		if rng.Intn(2) == 0 {
			return ""
		}
		return fmt.Sprintf("%s: %d, ", name, 1+rng.Intn(max)) // the CRDs' minimums are 1 or 0
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata: {name: hv, namespace: butler-system}
spec:
  provider: harvester
  credentialsRef: {name: c, namespace: butler-system}
  harvester: {endpoint: "https://h.example.com:6443", namespace: default, networkName: default/vlan}
  limits: {%s%s}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata: {name: t}
spec:
  resourceLimits: {%s%s%s%s%s}
  environments:
    - name: dev
      limits: {%s%s}
`, lim("maxClustersPerTeam", 12), lim("maxNodesPerTeam", 30),
		lim("maxClusters", 10), lim("maxTotalNodes", 30), quota("maxCPUCores", rng, ""), quota("maxMemory", rng, "Gi"), quota("maxStorage", rng, "Gi"),
		lim("maxClusters", 6), lim("maxClustersPerMember", 3))
	owners := []string{"a@example.com", "A@Example.com", "b@example.com", ""}
	envs := []string{"dev", "DEV", "prod", ""}
	for i := 0; i < 4+rng.Intn(10); i++ {
		fmt.Fprintf(&b, `---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: c%d
  namespace: t
  labels: {butler.butlerlabs.dev/environment: %q}
  annotations: {butler.butlerlabs.dev/creator-email: %q}
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: t}
  providerConfigRef: {name: hv, namespace: butler-system}
  workers:
    replicas: %d
    machineTemplate: {cpu: %d, memory: %dGi, diskSize: %dGi}
`, i, envs[rng.Intn(len(envs))], owners[rng.Intn(len(owners))], 1+rng.Intn(4), 1+rng.Intn(4), 1+rng.Intn(8), 10+rng.Intn(100))
	}
	return b.String()
}

func quota(name string, rng *rand.Rand, unit string) string {
	if rng.Intn(2) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: \"%d%s\", ", name, rng.Intn(60), unit)
}
