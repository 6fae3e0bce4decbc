package policy_test

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

var (
	ccpFuzzValues    = []string{"img-a", "img-b", "net-1", "net-2", "cl-1", "sc-1", ""}
	ccpFuzzKeys      = []string{"image", "network", "cluster", "storageContainer", "image", "network", "kubernetesVersion"}
	ccpFuzzModes     = []string{"pin", "allowList", "default", "recommended", "pin", "allowList"}
	ccpFuzzProviders = []v1alpha1.PolicyProviderType{"nutanix", "harvester", "proxmox", "local"}
)

// ccpFuzzPolicy builds one policy; names are few so that sets hold same-name duplicates too.
func ccpFuzzPolicy(r *acBytes) v1alpha1.ClusterCreationPolicy {
	p := v1alpha1.ClusterCreationPolicy{ObjectMeta: metav1.ObjectMeta{Name: []string{"a", "b", "c", "d", "e"}[r.pick(5)]}}
	team := []string{"payments", "billing", ""}[r.pick(3)]
	switch r.pick(4) {
	case 0, 1:
		p.Spec.Scope.PlatformWide = &v1alpha1.PlatformWideScope{}
	case 2:
		p.Spec.Scope.Team = &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: team}}
	case 3:
		p.Spec.Scope.TeamAndEnvironment = &v1alpha1.TeamAndEnvironmentScope{
			TeamRef: v1alpha1.LocalObjectReference{Name: team}, EnvironmentName: []string{"dev", "prod", "staging", ""}[r.pick(4)]}
	}
	if r.pick(8) == 0 { // invalid but possibly stored before the webhook
		p.Spec.Scope.PlatformWide = &v1alpha1.PlatformWideScope{}
	}
	for n := r.pick(3); n > 0; n-- {
		p.Spec.TargetProviders = append(p.Spec.TargetProviders, ccpFuzzProviders[r.pick(len(ccpFuzzProviders))])
	}
	if r.pick(6) != 0 {
		p.Spec.Options = map[string]v1alpha1.OptionRule{}
	}
	for n := r.pick(4); n > 0 && p.Spec.Options != nil; n-- {
		rule := v1alpha1.OptionRule{Mode: ccpFuzzModes[r.pick(len(ccpFuzzModes))]}
		if r.pick(5) != 0 {
			rule.Values = []string{}
		}
		for m := r.pick(4); m > 0; m-- {
			rule.Values = append(rule.Values, ccpFuzzValues[r.pick(len(ccpFuzzValues))])
		}
		if r.pick(2) == 0 {
			rule.Default = ccpFuzzValues[r.pick(len(ccpFuzzValues))]
		}
		p.Spec.Options[ccpFuzzKeys[r.pick(len(ccpFuzzKeys))]] = rule
	}
	return p
}

// ccpFuzzOverride sets some of the provider override fields a policy may govern.
func ccpFuzzOverride(r *acBytes, c *v1alpha1.TenantCluster) {
	if r.pick(4) == 0 {
		return
	}
	o := &v1alpha1.InfrastructureOverride{}
	v := func() string { return ccpFuzzValues[r.pick(len(ccpFuzzValues))] }
	if r.pick(3) != 0 {
		o.Nutanix = &v1alpha1.NutanixOverride{ImageUUID: v(), SubnetUUID: v(), ClusterUUID: v(), StorageContainerUUID: v()}
	}
	if r.pick(3) != 0 {
		o.Harvester = &v1alpha1.HarvesterOverride{ImageName: v(), NetworkName: v(), Namespace: "default"}
	}
	c.Spec.InfrastructureOverride = o
}

// ccpFuzzAdd gives a generated request policies and override values.
func ccpFuzzAdd(r *acBytes, req *policy.ClusterRequest) {
	if req.Cluster != nil {
		ccpFuzzOverride(r, req.Cluster)
	}
	if req.Cluster != nil && req.Old != nil && req.Old != req.Cluster && r.pick(2) == 0 {
		req.Old.Spec.InfrastructureOverride = req.Cluster.Spec.InfrastructureOverride.DeepCopy()
	}
	for n := r.pick(6); n > 0; n-- {
		req.Policies = append(req.Policies, ccpFuzzPolicy(r))
	}
}

// TestCreationPolicyAdmissionMatchesServer compares AdmitCluster, ClusterCreationPolicy step
// included, with the transcription of the server on generated requests that carry policies,
// and requires the generator to reach the step's refusals (pins and allow-lists, several at
// once) often enough for the comparison to mean something.
func TestCreationPolicyAdmissionMatchesServer(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	n := 12000
	pins, allows, several := 0, 0, 0
	for i := 0; i < n; i++ {
		b := make([]byte, 320)
		rng.Read(b)
		req, comparable := acFuzzRequest(b, "16Gi", "100Gi", "480Gi")
		if !comparable {
			continue
		}
		if req.Cluster != nil && i%2 == 0 { // reach the policy step more often
			req.Cluster.Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: "pc"}
			req.ProviderConfig = &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "pc", Namespace: "butler-system"}}
			req.ProviderConfig.Spec.Provider = []string{"nutanix", "harvester"}[rng.Intn(2)]
			r := &acBytes{b: b[200:]}
			ccpFuzzOverride(r, req.Cluster)
			for k := 1 + r.pick(5); k > 0; k-- {
				req.Policies = append(req.Policies, ccpFuzzPolicy(r))
			}
		}
		d := policy.AdmitCluster(req)
		acCheckDecision(t, req, d)
		got, want := acErrString(d.Err()), acErrString(acOracle(req))
		if got != want {
			t.Fatalf("case %d: disagreement\n got: %s\nwant: %s", i, got, want)
		}
		k := 0
		for _, v := range d.Violations {
			if strings.HasPrefix(v.Rule, policy.RuleCreationPolicy) {
				k++
				if strings.Contains(v.Error.Detail, " pins ") {
					pins++
				} else {
					allows++
				}
			}
		}
		if k > 1 {
			several++
		}
	}
	if pins < 200 || allows < 200 || several < 100 {
		t.Fatalf("generator too narrow: %d pin refusals, %d allow-list refusals, %d requests with several", pins, allows, several)
	}
	t.Logf("%d requests: %d pin refusals, %d allow-list refusals, %d with several", n, pins, allows, several)
}

// TestPolicyAdmissionMatchesServer compares AdmitPolicy with the transcription of the
// server's ClusterCreationPolicy webhook on generated policies, teams and stored policies.
func TestPolicyAdmissionMatchesServer(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	teams := map[string]*v1alpha1.Team{
		"payments": {ObjectMeta: metav1.ObjectMeta{Name: "payments"}, Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}},
		"billing":  {ObjectMeta: metav1.ObjectMeta{Name: "billing"}},
	}
	rules := map[string]int{}
	n := 12000
	for i := 0; i < n; i++ {
		b := make([]byte, 200)
		rng.Read(b)
		r := &acBytes{b: b}
		p := ccpFuzzPolicy(r)
		if p.Spec.Scope.Validate(nil) != nil {
			continue // the API server refuses it before the webhook: see TestAdmitPolicyCases
		}
		var others []v1alpha1.ClusterCreationPolicy
		for k := r.pick(5); k > 0; k-- {
			others = append(others, ccpFuzzPolicy(r))
		}
		d := policy.AdmitPolicy(policy.PolicyRequest{Operation: policy.Create, Policy: &p, Others: others,
			Team: func(name string) *v1alpha1.Team { return teams[name] }})
		got, want := acErrString(d.Err()), acErrString(ccpAdmissionOracle(&p, teams, others))
		if got != want {
			t.Fatalf("case %d: disagreement\n got: %s\nwant: %s", i, got, want)
		}
		for _, v := range d.Violations {
			rules[v.Rule]++
		}
	}
	for _, rule := range []string{policy.RulePolicyTeamRef, policy.RulePolicyEnvironmentRef, policy.RulePolicyOptionKey,
		policy.RulePolicyPinValues, policy.RulePolicyValuesRequired, policy.RulePolicyDefaultRequired, policy.RulePolicyConflict} {
		if rules[rule] < 100 {
			t.Errorf("generator too narrow: %d refusals by %s", rules[rule], rule)
		}
	}
}

// TestNeedsPolicies: whenever a request says it does not need the policies, its verdict is
// the same without them (the checks differ: an empty value is recorded as allowed); the
// generator must reach both sides often.
func TestNeedsPolicies(t *testing.T) {
	rng := rand.New(rand.NewSource(19))
	skipped, needed := 0, 0
	for i := 0; i < 12000; i++ {
		b := make([]byte, 320)
		rng.Read(b)
		req, _ := acFuzzRequest(b, "16Gi", "100Gi", "480Gi")
		if req.NeedsPolicies() {
			needed++
			continue
		}
		if len(req.Policies) == 0 {
			continue
		}
		d := policy.AdmitCluster(req)
		with := d.Err()
		req.Policies = nil
		d = policy.AdmitCluster(req)
		if without := d.Err(); !reflect.DeepEqual(with, without) {
			t.Fatalf("case %d: NeedsPolicies is false but the policies change the decision\nwith:    %+v\nwithout: %+v", i, with, without)
		}
		skipped++
	}
	if skipped < 1000 || needed < 1000 {
		t.Fatalf("generator too narrow: %d compared without policies, %d needing them", skipped, needed)
	}
}
