package policy_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// rulesDocMessages are the message templates docs/rules.md quotes (the lines of its text
// blocks), each as an anchored pattern in which a <placeholder> stands for any text.
func rulesDocMessages(t *testing.T) map[string]*regexp.Regexp {
	t.Helper()
	// Bounded read; pkg/policy's tests import nothing under internal/, so not safeio.
	f, err := os.Open(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	placeholder := regexp.MustCompile(`<[^<>]+>`)
	out := map[string]*regexp.Regexp{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "```text":
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in && line != "":
			parts := placeholder.Split(line, -1)
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			out[line] = regexp.MustCompile("^" + strings.Join(parts, ".+") + "$")
		}
	}
	if len(out) < 20 {
		t.Fatalf("docs/rules.md quotes %d messages; its text blocks were not found", len(out))
	}
	return out
}

// producedMessages drives every rule that answers with one of the server's messages and
// returns the messages, one per violation.
func producedMessages(t *testing.T) []string {
	t.Helper()
	var msgs []string
	admit := func(req policy.ClusterRequest) {
		d := policy.AdmitCluster(req)
		for _, e := range d.ErrorList() {
			msgs = append(msgs, e.Error())
		}
	}
	team := func() *v1alpha1.Team {
		tm := acPayments()
		tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{
			MaxClusters: acI32(1), MaxTotalNodes: acI32(1), MaxNodesPerCluster: acI32(1),
			MaxCPUCores: ptrQ("1"), MaxMemory: ptrQ("1Gi"), MaxStorage: ptrQ("1Gi"),
			AllowedKubernetesVersions: []string{"1.29.x", "1.30.x"}, AllowedProviders: []string{"nutanix", "aws"},
			DeniedAddons: []string{"dashboard"},
		}
		tm.Spec.Environments[0].Limits = &v1alpha1.EnvironmentLimits{MaxClusters: acI32(1), MaxClustersPerMember: acI32(1)}
		return tm
	}
	pc := acPC()
	pc.Spec.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: acI32(1), MaxNodesPerTeam: acI32(1)}
	sibs := []v1alpha1.TenantCluster{acTC("s1", "dev", acCarol)}
	create := func(c v1alpha1.TenantCluster, who string, p *v1alpha1.ProviderConfig, addons ...string) policy.ClusterRequest {
		return policy.ClusterRequest{Operation: policy.Create, Cluster: &c, Team: team(), Siblings: sibs,
			ProviderConfig: p, Username: who, Addons: addons}
	}

	// Every cap and limit at once, and the client-side restrictions.
	admit(create(acTC("new", "dev", acCarol), acCarol, pc, "dashboard"))
	admit(create(acTC("new", "", acCarol), acCarol, pc))        // label required
	admit(create(acTC("new", "staging", acCarol), acCarol, pc)) // unknown environment
	admit(create(acTC("new", "dev", ""), acCarol, pc))          // creator required
	admit(create(acTC("new", "dev", acBob), acCarol, pc))       // creator mismatch
	admit(create(acTC("new", "prod", acCarol), acCarol, nil))   // ProviderConfig not found
	scoped := acPC()
	scoped.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "other"}}
	admit(create(acTC("new", "prod", acCarol), acCarol, scoped)) // team scope
	old := acTC("s1", "dev", acCarol)
	moved, recreated := *old.DeepCopy(), *old.DeepCopy()
	moved.Labels[v1alpha1.LabelEnvironment] = "prod"
	recreated.Annotations[v1alpha1.AnnotationCreatorEmail] = acBob
	for _, cur := range []v1alpha1.TenantCluster{moved, recreated} {
		admit(policy.ClusterRequest{Operation: policy.Update, Cluster: &cur, Old: &old, Team: team(),
			Siblings: sibs, ProviderConfig: acPC(), Username: acCarol})
	}

	// The Team webhook.
	alice, bob := policy.Identity{Username: acAlice}, policy.Identity{Username: acBob}
	teamMsg := func(op policy.Operation, old, cur *v1alpha1.Team, id policy.Identity) {
		if d := policy.AdmitTeam(op, old, cur, id, false); d != nil {
			msgs = append(msgs, d.Message)
		}
	}
	envLimitsOnly := team()
	envLimitsOnly.Spec.ResourceLimits = nil
	teamMsg(policy.Create, nil, team(), alice)
	teamMsg(policy.Create, nil, envLimitsOnly, alice)
	teamMsg(policy.Update, acPayments(), team(), alice)
	teamMsg(policy.Update, acPayments(), func() *v1alpha1.Team { t := acPayments(); t.Spec.Environments[0].Limits = nil; return t }(), bob)
	strangers := acPayments()
	strangers.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "mallory@example.com"}}}
	teamMsg(policy.Update, acPayments(), strangers, alice)
	strangers.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Groups: []v1alpha1.TeamGroup{{Name: "outsiders"}}}
	teamMsg(policy.Update, acPayments(), strangers, alice)

	// The ProviderConfig webhook, and its delete guard.
	for _, spec := range []v1alpha1.ProviderConfigSpec{
		{Provider: v1alpha1.ProviderAzure},
		{Provider: v1alpha1.ProviderAzure, Azure: &v1alpha1.AzureConfig{}},
		{Provider: v1alpha1.ProviderAWS, AWS: &v1alpha1.AWSConfig{},
			Scope:   &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam},
			Network: &v1alpha1.ProviderNetwork{Mode: v1alpha1.NetworkModeIPAM}},
		{Provider: v1alpha1.ProviderGCP, GCP: &v1alpha1.GCPConfig{}},
	} {
		for _, e := range policy.ValidateProviderConfigWebhook(&v1alpha1.ProviderConfig{Spec: spec}) {
			msgs = append(msgs, e.Error())
		}
	}
	if e := policy.ProviderDeleteGuard(acPC(), sibs); e != nil {
		msgs = append(msgs, e.Error())
	}
	// The upgrade path rules.
	for _, c := range []struct {
		from, to string
		allowed  []string
	}{{"v1.31.0", "v1.30.4", nil}, {"v1.31.0", "v2.0.0", nil}, {"v1.29.3", "v1.31.0", nil}, {"v1.29.3", "v1.31.0", []string{"1.31.x"}}} {
		p, _ := policy.PlanUpgrade(c.from, c.to, c.allowed)
		for _, v := range p.Violations {
			msgs = append(msgs, v.Error.Error())
		}
	}
	msgs = append(msgs, producedPoolMessages()...)
	{ // this project's own Team rule: authority judged on the Team as it was
		old := acPayments()
		grab := old.DeepCopy()
		grab.Spec.Access.Users = append(grab.Spec.Access.Users, v1alpha1.TeamUser{Name: "zed@example.com", Role: v1alpha1.RoleAdmin})
		grab.Spec.Environments[0].Limits = &v1alpha1.EnvironmentLimits{MaxClusters: acI32(9)}
		if d := policy.TeamAuthorityAsWas(old, grab, policy.Identity{Username: "zed@example.com"}, false); d != nil {
			msgs = append(msgs, d.Message)
		}
	}
	return append(msgs, producedPolicyMessages()...)
}

// producedPoolMessages drives the NetworkPool rules, one message per error.
func producedPoolMessages() []string {
	var msgs []string
	add := func(d policy.PoolDecision) {
		var agg utilerrors.Aggregate
		switch {
		case d.Err == nil:
		case errors.As(d.Err, &agg):
			for _, e := range agg.Errors() {
				msgs = append(msgs, e.Error())
			}
		default:
			msgs = append(msgs, d.Err.Error())
		}
	}
	bad := npPool("10.50.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
		s.Reserved = []v1alpha1.ReservedRange{{CIDR: "10.51.0.0/24"}}
		s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.50.9.0", End: "10.50.1.0"}}
	})
	add(policy.AdmitNetworkPool(policy.Create, nil, bad, nil))
	base := npPool("10.40.0.0/16", nil)
	allocs := []v1alpha1.IPAllocation{npAlloc("payments", "web-nodes", v1alpha1.IPAllocationPhaseAllocated, "10.40.5.1")}
	add(policy.AdmitNetworkPool(policy.Update, base, npPool("10.40.0.0/17", nil), allocs))
	add(policy.AdmitNetworkPool(policy.Update, base, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
		s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.40.6.0", End: "10.40.9.255"}}
	}), allocs))
	add(policy.AdmitNetworkPool(policy.Delete, nil, base, allocs))
	return msgs
}

// producedPolicyMessages drives the ClusterCreationPolicy step of TenantCluster admission
// and every rule of ClusterCreationPolicy admission.
func producedPolicyMessages() []string {
	var msgs []string
	add := func(d policy.Decision) {
		for _, e := range d.ErrorList() {
			msgs = append(msgs, e.Error())
		}
	}
	req := nutanixCreate(ccp("p", platformWide, nil, map[string]v1alpha1.OptionRule{"image": pin("a"), "network": allow("n1", "n2")}))
	policy.SetOptionValue(req.Cluster, "nutanix", "image", "b")
	policy.SetOptionValue(req.Cluster, "nutanix", "network", "n3")
	add(policy.AdmitCluster(req))
	teams := func(name string) *v1alpha1.Team {
		if name == "payments" {
			return acPayments()
		}
		return nil
	}
	stored := []v1alpha1.ClusterCreationPolicy{ccp("other", teamPayments, nil, map[string]v1alpha1.OptionRule{"image": allow("a")})}
	for _, p := range []v1alpha1.ClusterCreationPolicy{
		ccp("x", v1alpha1.PolicyScope{Team: &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: "nope"}}}, nil, nil),
		ccp("x", v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{TeamRef: v1alpha1.LocalObjectReference{Name: "nope"}, EnvironmentName: "qa"}}, nil, nil),
		ccp("x", v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}, EnvironmentName: "qa"}}, nil, nil),
		ccp("x", teamPayments, nil, map[string]v1alpha1.OptionRule{"image": {Mode: "pin"}, "network": {Mode: "allowList"},
			"cluster": {Mode: "recommended"}, "storageContainer": {Mode: "default"}, "flavor": pin("m")}),
	} {
		add(policy.AdmitPolicy(policy.PolicyRequest{Operation: policy.Create, Policy: &p, Team: teams, Others: stored}))
	}
	return msgs
}

func ptrQ(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

// TestRulesDocQuotesEveryMessage: every message the rules produce is quoted in
// docs/rules.md, and every message quoted there is one the rules produce, so the page
// cannot drift from the code in either direction.
func TestRulesDocQuotesEveryMessage(t *testing.T) {
	doc := rulesDocMessages(t)
	used, seen := map[string]bool{}, map[string]bool{}
	for _, m := range producedMessages(t) {
		if seen[m] {
			continue
		}
		seen[m] = true
		found := false
		for tmpl, re := range doc {
			if re.MatchString(m) {
				used[tmpl], found = true, true
			}
		}
		if !found {
			t.Errorf("message not quoted in docs/rules.md:\n  %s", m)
		}
	}
	for tmpl := range doc {
		if !used[tmpl] {
			t.Errorf("docs/rules.md quotes a message no rule produced here:\n  %s", tmpl)
		}
	}
}
