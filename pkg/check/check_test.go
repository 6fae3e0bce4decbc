package check

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestOver(t *testing.T) {
	for _, c := range []struct{ limit, after, want string }{
		{"5", "6", "1"}, {"10Gi", "16Gi", "6Gi"}, {"6", "6", ""}, {"6", "5", ""}, {`"a", "b"`, "c", ""},
	} {
		if got := over(c.limit, c.after); got != c.want {
			t.Errorf("over(%q, %q) = %q, want %q", c.limit, c.after, got, c.want)
		}
	}
}

func TestDecodeFindings(t *testing.T) {
	err := errors.Join(&manifest.DecodeError{File: "a.yaml", Line: 3, Kind: "Team", Name: "t", Field: "spec.x", Msg: "unknown field"})
	fs, ok := DecodeFindings(err)
	if !ok || len(fs) != 1 || fs[0].Message != "spec.x: unknown field" || fs[0].Rule != RuleDecode || fs[0].Line != 3 {
		t.Fatalf("DecodeFindings = %+v, %v", fs, ok)
	}
	if _, ok := DecodeFindings(errors.Join(errors.New("open b.yaml: permission denied"))); ok {
		t.Error("a file error was taken for a decoding problem")
	}
}

const team = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata: {name: t}
spec:
  access:
    users: [{name: op@example.com, role: operator}]
  environments:
    - name: dev
      limits: {maxClustersPerMember: 1}
`

func clusterDoc(name, env, creator string) string {
	return `---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: ` + name + `
  namespace: t
  labels: {butler.butlerlabs.dev/environment: ` + env + `}
  annotations: {butler.butlerlabs.dev/creator-email: ` + creator + `}
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: t}
  workers:
    replicas: 1
    machineTemplate: {cpu: 1, memory: 1Gi, diskSize: 10Gi}
`
}

// providerDoc is a platform ProviderConfig, hv, for trees whose clusters name it (the
// server skips the team's limits for a cluster without one).
const providerDoc = `---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata: {name: hv, namespace: butler-system}
spec:
  provider: harvester
  credentialsRef: {name: c, namespace: butler-system}
  harvester: {endpoint: "https://h.example.com:6443", namespace: default, networkName: default/vlan}
  scope: {type: platform}
`

// withProvider makes a clusterDoc name providerDoc's ProviderConfig.
func withProvider(cluster string) string {
	return strings.Replace(cluster, "  teamRef: {name: t}\n", "  teamRef: {name: t}\n  providerConfigRef: {name: hv, namespace: butler-system}\n", 1)
}

func load(t *testing.T, docs ...string) *manifest.Set {
	t.Helper()
	set, err := manifest.LoadFiles([]manifest.File{{Name: "tree.yaml", Data: []byte(strings.Join(docs, ""))}}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// A cap the base already breaks is a warning in a change that does not touch it; the
// cluster a change adds past the cap is an error, as the author's create.
func TestChangeDemotesWhatItDidNotBring(t *testing.T) {
	base := load(t, team, clusterDoc("a", "dev", "op@example.com"), clusterDoc("b", "dev", "op@example.com"))
	r := Change(base, load(t, team, clusterDoc("a", "dev", "op@example.com"), clusterDoc("b", "dev", "op@example.com")), Options{Author: policy.Identity{Username: "op@example.com"}})
	if r.Errors != 0 || r.Warnings == 0 {
		t.Fatalf("unchanged tree past its cap: %d errors, %d warnings, want warnings only: %+v", r.Errors, r.Warnings, r.Findings)
	}
	r = Change(base, load(t, team, clusterDoc("a", "dev", "op@example.com"), clusterDoc("b", "dev", "op@example.com"), clusterDoc("c", "dev", "op@example.com")), Options{Author: policy.Identity{Username: "op@example.com"}})
	var errs []Finding
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			errs = append(errs, f)
		}
	}
	if len(errs) != 1 || errs[0].Name != "c" || errs[0].Rule != policy.RuleMemberMaxClusters || errs[0].Over != "2" {
		t.Fatalf("added past the cap: want one member-max-clusters error on c, over by 2: %+v", r.Findings)
	}
}

// The verdict on a change does not depend on the names of the clusters: a change that adds
// one cluster past the per-member cap, next to an unchanged cluster named before or after
// it, and a change that scales a cluster while another is left alone, give the same
// errors and warnings (by rule) whatever the names.
func TestVerdictIndependentOfNames(t *testing.T) {
	type verdict struct{ errs, warns string }
	judge := func(base, head *manifest.Set) verdict {
		r := Change(base, head, Options{Author: policy.Identity{Username: "op@example.com"}})
		var v verdict
		for _, f := range r.Findings {
			if f.Severity == SeverityError {
				v.errs += f.Rule + ";"
			} else {
				v.warns += f.Rule + ";"
			}
		}
		return v
	}
	scaled := func(name string, replicas int) string {
		c := strings.Replace(clusterDoc(name, "dev", "op@example.com"), "replicas: 1", fmt.Sprintf("replicas: %d", replicas), 1)
		return withProvider(c)
	}
	limited := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata: {name: t}
spec:
  access:
    users: [{name: op@example.com, role: operator}]
  resourceLimits: {maxTotalNodes: 3}
` + providerDoc
	var adds, scales []verdict
	for _, name := range []string{"aa", "mm", "zz"} {
		base := load(t, team, clusterDoc("kept", "dev", "op@example.com"))
		adds = append(adds, judge(base, load(t, team, clusterDoc("kept", "dev", "op@example.com"), clusterDoc(name, "dev", "op@example.com"))))
		base = load(t, limited, scaled(name, 1), scaled("other", 2))
		scales = append(scales, judge(base, load(t, limited, scaled(name, 3), scaled("other", 2))))
	}
	for i := range adds {
		if adds[i] != adds[0] || scales[i] != scales[0] {
			t.Errorf("verdicts differ by name: adds %+v, scales %+v", adds, scales)
		}
	}
	if adds[0].errs != policy.RuleMemberMaxClusters+";" {
		t.Errorf("the added cluster past the per-member cap: %+v", adds[0])
	}
	if scales[0].errs != "" || !strings.Contains(scales[0].warns, policy.RuleTeamMaxTotalNodes) {
		t.Errorf("a scale past maxTotalNodes is an update the server admits, with a warning: %+v", scales[0])
	}
}

// Usage after a change is what Butler holds once it is applied: a refused create is not
// counted, and a refused update leaves the cluster as the base has it.
func TestUsageAfterCountsWhatIsAdmitted(t *testing.T) {
	tree := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata: {name: t}
spec:
  access:
    users: [{name: op@example.com, role: operator}]
  environments:
    - {name: dev, limits: {maxClusters: 1}}
    - {name: prod, limits: {maxClusters: 1}}
` + providerDoc
	cluster := func(name, env string) string {
		return withProvider(clusterDoc(name, env, "op@example.com"))
	}
	base := load(t, tree, cluster("a", "dev"))
	// a moves to prod by its label alone (no migration): refused; b is past dev's cap.
	head := load(t, tree, cluster("a", "prod"), cluster("b", "dev"))
	r := Change(base, head, Options{Author: policy.Identity{Username: "op@example.com"}})
	refused := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			refused[f.Name] = true
		}
	}
	if !refused["a"] || !refused["b"] {
		t.Fatalf("want the relabel of a and the create of b refused: %+v", r.Findings)
	}
	after := map[string]string{}
	for _, u := range r.Usage {
		after[u.Environment] = fmt.Sprintf("%s over=%v", u.After, u.Over)
	}
	for env, want := range map[string]string{"dev": "1 over=false", "prod": "0 over=false"} {
		if after[env] != want {
			t.Errorf("%s: after %q, want %q (all: %v)", env, after[env], want, after)
		}
	}
}

// A cluster written without a namespace is counted in its team's namespace, as the other
// offline commands take it, and the check fills that in on its own copy: the set's object
// keeps the manifest's (empty) namespace.
func TestNamespaceFilledOnACopy(t *testing.T) {
	tree := team + "status: {namespace: team-t}\n"
	noNS := func(name string) string {
		return strings.Replace(clusterDoc(name, "dev", "op@example.com"), "  namespace: t\n", "", 1)
	}
	set := load(t, tree, noNS("a"), noNS("b"))
	r := State(set, Options{})
	var errs []string
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			errs = append(errs, f.Name+" "+f.Rule)
		}
	}
	if len(errs) != 1 || errs[0] != "b "+policy.RuleMemberMaxClusters {
		t.Fatalf("want b refused past the per-member cap of team-t: %q (all: %+v)", errs, r.Findings)
	}
	tcs, err := set.TenantClusters()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tcs {
		if c.Namespace != "" {
			t.Errorf("the set's %s has namespace %q after the check, want none", c.Name, c.Namespace)
		}
	}
}

// A state check's clusters are creates: a cluster Butler refuses (here for its size) is
// not created, so it counts toward no cap, and the cluster after it, which Butler admits,
// is not reported; the usage counts what Butler holds.
func TestStateRefusedClusterCountsNothing(t *testing.T) {
	tree := strings.Replace(team, "maxClustersPerMember: 1", "maxClusters: 2", 1) + `  resourceLimits: {maxNodesPerCluster: 3}
` + providerDoc
	cluster := func(name string, replicas string) string {
		doc := withProvider(clusterDoc(name, "dev", "op@example.com"))
		return strings.Replace(doc, "replicas: 1", "replicas: "+replicas, 1)
	}
	r := State(load(t, tree, cluster("a", "1"), cluster("b", "5"), cluster("c", "1")), Options{})
	refused := map[string][]string{}
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			refused[f.Name] = append(refused[f.Name], f.Rule)
		}
	}
	if len(refused) != 1 || len(refused["b"]) != 1 || refused["b"][0] != policy.RuleTeamMaxNodesPerCluster {
		t.Fatalf("want b alone refused, for its nodes: %v\n%+v", refused, r.Findings)
	}
	rows := 0
	for _, u := range r.Usage {
		if u.Environment == "dev" && u.Cap == "maxClusters" {
			rows++
			if u.After != "2" || u.Over {
				t.Errorf("dev's maxClusters: after %q over %v, want 2, not over", u.After, u.Over)
			}
		}
	}
	if rows != 1 {
		t.Errorf("%d usage rows for dev's maxClusters, want 1: %+v", rows, r.Usage)
	}
}

// Whether a Team's limits changed is the server's question, answered as its webhook
// answers it (reflect.DeepEqual of the decoded values): a limit re-spelled from "1Gi" to
// "1024Mi" is a change only platform admins may make, although the two are the same
// quantity; re-spelled from one non-canonical form to another, it is no change. The answer
// does not depend on what the check printed first (a quantity caches its canonical
// spelling when printed, as the replay does in the message of a cap it refuses).
func TestTeamLimitRespelledIsAChange(t *testing.T) {
	teamWith := func(mem string) string {
		return `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata: {name: t}
spec:
  access:
    users: [{name: admin@example.com, role: admin}, {name: op@example.com, role: operator}]
  resourceLimits: {maxMemory: ` + mem + `}
  environments: [{name: dev}]
` + providerDoc
	}
	// Two clusters of 1Gi each, past the limit in both trees: the replay prints the limit
	// before the Teams are compared.
	var past string
	for _, name := range []string{"a", "b"} {
		past += withProvider(strings.Replace(clusterDoc(name, "dev", "op@example.com"), "memory: 1Gi", "memory: 1024Mi", 1))
	}
	// The team admin applies the change (the server refuses it), or Flux does and the
	// gate judges the admin as its author.
	byAdmin := Options{Author: policy.Identity{Username: "admin@example.com"}}
	byFlux := byAdmin
	byFlux.Applier = policy.Identity{Username: "system:serviceaccount:flux-system:kustomize-controller"}
	for _, tc := range []struct {
		from, to string
		refused  bool
	}{
		{"1Gi", "1024Mi", true},
		{"1024Mi", "1Gi", true},
		{"1024Mi", "1048576Ki", false},
		{"1024Mi", "1024Mi", false},
		{"1Gi", "1Gi", false},
	} {
		for _, by := range []struct {
			opts Options
			rule string
		}{{byAdmin, policy.RuleTeamResourceLimits}, {byFlux, RuleAuthorTeamLimits}} {
			r := Change(load(t, teamWith(tc.from), past), load(t, teamWith(tc.to), past), by.opts)
			var got []string
			refused, replayed := false, false
			for _, f := range r.Findings {
				refused = refused || f.Rule == by.rule
				replayed = replayed || f.Rule == policy.RuleTeamMaxMemory
				if f.Severity == SeverityError {
					got = append(got, f.Rule+": "+f.Message)
				}
			}
			if refused != tc.refused {
				t.Errorf("%s to %s by a team admin, applied by %q: refused (%s) %v, want %v: %v", tc.from, tc.to, by.opts.applier().Username, by.rule, refused, tc.refused, got)
			}
			if !replayed {
				t.Errorf("%s to %s: the clusters past maxMemory were not reported, so the limit was never printed", tc.from, tc.to)
			}
		}
	}
}
