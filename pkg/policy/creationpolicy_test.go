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

func ccp(name string, scope v1alpha1.PolicyScope, providers []v1alpha1.PolicyProviderType, opts map[string]v1alpha1.OptionRule) v1alpha1.ClusterCreationPolicy {
	return v1alpha1.ClusterCreationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ClusterCreationPolicySpec{Scope: scope, TargetProviders: providers, Options: opts}}
}

var (
	platformWide = v1alpha1.PolicyScope{PlatformWide: &v1alpha1.PlatformWideScope{}}
	teamPayments = v1alpha1.PolicyScope{Team: &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}}}
	paymentsProd = v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{
		TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}, EnvironmentName: "prod"}}
)

func allow(values ...string) v1alpha1.OptionRule {
	return v1alpha1.OptionRule{Mode: v1alpha1.ModeAllowList, Values: values}
}

func pin(v string) v1alpha1.OptionRule {
	return v1alpha1.OptionRule{Mode: v1alpha1.ModePin, Values: []string{v}}
}

func TestResolvePolicies(t *testing.T) {
	set := []v1alpha1.ClusterCreationPolicy{
		ccp("platform", platformWide, nil, map[string]v1alpha1.OptionRule{"image": allow("img-a", "img-b", "img-c"), "network": allow("net-1")}),
		ccp("payments", teamPayments, nil, map[string]v1alpha1.OptionRule{"image": allow("img-c")}),
		ccp("payments-prod", paymentsProd, []v1alpha1.PolicyProviderType{"nutanix"}, map[string]v1alpha1.OptionRule{"image": pin("img-p"),
			"storageContainer": {Mode: v1alpha1.ModeRecommended, Values: []string{"sc-fast"}, RecommendedReason: "SSD"}}),
		ccp("harvester-only", platformWide, []v1alpha1.PolicyProviderType{"harvester"}, map[string]v1alpha1.OptionRule{"cluster": pin("cl-h")}),
	}
	type row struct{ option, policy, tier, mode string }
	resolve := func(team, env, provider string) []row {
		var out []row
		for _, r := range policy.ResolvePolicies(set, policy.PolicyTarget{Team: team, Environment: env, Provider: provider}) {
			out = append(out, row{r.Option, r.Policy, r.Tier.String(), r.Rule.Mode})
		}
		return out
	}
	for _, tc := range []struct {
		name                    string
		team, env, provider     string
		want                    []row
		wantImageValues         []string
		wantPreselectForStorage string
	}{
		{"the most specific tier wins; options fall through", "payments", "prod", "nutanix", []row{
			{"image", "payments-prod", "teamAndEnvironment", "pin"},
			{"network", "platform", "platformWide", "allowList"},
			{"storageContainer", "payments-prod", "teamAndEnvironment", "recommended"},
		}, []string{"img-p"}, ""},
		{"provider filter drops the environment's policy", "payments", "prod", "harvester", []row{
			{"image", "payments", "team", "allowList"},
			{"network", "platform", "platformWide", "allowList"},
			{"cluster", "harvester-only", "platformWide", "pin"},
		}, []string{"img-c"}, ""},
		{"team tier replaces the platform list (no merge)", "payments", "dev", "nutanix", []row{
			{"image", "payments", "team", "allowList"},
			{"network", "platform", "platformWide", "allowList"},
		}, []string{"img-c"}, ""},
		{"other team", "billing", "prod", "nutanix", []row{
			{"image", "platform", "platformWide", "allowList"},
			{"network", "platform", "platformWide", "allowList"},
		}, []string{"img-a", "img-b", "img-c"}, ""},
		{"no team: platform only", "", "prod", "nutanix", []row{
			{"image", "platform", "platformWide", "allowList"},
			{"network", "platform", "platformWide", "allowList"},
		}, []string{"img-a", "img-b", "img-c"}, ""},
		{"no environment: the environment tier never matches", "payments", "", "nutanix", []row{
			{"image", "payments", "team", "allowList"},
			{"network", "platform", "platformWide", "allowList"},
		}, []string{"img-c"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.team, tc.env, tc.provider); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
			rs := policy.ResolvePolicies(set, policy.PolicyTarget{Team: tc.team, Environment: tc.env, Provider: tc.provider})
			if !reflect.DeepEqual(rs[0].Rule.Values, tc.wantImageValues) {
				t.Errorf("image values %v, want %v", rs[0].Rule.Values, tc.wantImageValues)
			}
		})
	}
	if got := policy.ResolvePolicies(nil, policy.PolicyTarget{Team: "payments"}); got != nil {
		t.Errorf("no policies: %v", got)
	}
}

// TestResolvePoliciesProperties checks, over generated policy sets, what resolution
// promises whatever the set: each option's rule is exactly one applicable policy's rule
// (never a merge), no applicable policy of a more specific tier has a rule for that option,
// the winner is the first by name in its tier, and options no applicable policy has are absent.
func TestResolvePoliciesProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	targets := []policy.PolicyTarget{{"payments", "prod", "nutanix"}, {"payments", "dev", "harvester"}, {"billing", "", "proxmox"}, {"", "", "nutanix"}}
	resolved := map[v1alpha1.Tier]int{}
	for i := 0; i < 10000; i++ {
		b := make([]byte, 300)
		rng.Read(b)
		r := &acBytes{b: b}
		var set []v1alpha1.ClusterCreationPolicy
		for n := r.pick(8); n > 0; n-- {
			set = append(set, ccpFuzzPolicy(r))
		}
		target := targets[r.pick(len(targets))]
		got := policy.ResolvePolicies(set, target)
		byOption := map[string]policy.ResolvedRule{}
		for _, rr := range got {
			byOption[rr.Option] = rr
			resolved[rr.Tier]++
		}
		for _, opt := range v1alpha1.OptionTypes {
			best := v1alpha1.TierNone
			var winner *v1alpha1.ClusterCreationPolicy
			for j := range set {
				p := &set[j]
				tier := policy.PolicyTier(p, target)
				if _, has := p.Spec.Options[opt]; !has || tier == v1alpha1.TierNone {
					continue
				}
				if tier > best || (tier == best && p.Name < winner.Name) {
					best, winner = tier, p
				}
			}
			rr, ok := byOption[opt]
			if winner == nil {
				if ok {
					t.Fatalf("case %d: %s resolved to %q though no applicable policy curates it", i, opt, rr.Policy)
				}
				continue
			}
			if !ok || rr.Tier != best || rr.Policy != winner.Name || !reflect.DeepEqual(rr.Rule, winner.Spec.Options[opt]) {
				t.Fatalf("case %d: %s resolved to %+v, want %q at %s with %+v", i, opt, rr, winner.Name, best, winner.Spec.Options[opt])
			}
		}
	}
	for _, tier := range []v1alpha1.Tier{v1alpha1.TierPlatformWide, v1alpha1.TierTeam, v1alpha1.TierTeamAndEnvironment} {
		if resolved[tier] < 150 {
			t.Errorf("generator too narrow: %d rules resolved at %s", resolved[tier], tier)
		}
	}
}

func TestPreselect(t *testing.T) {
	for _, tc := range []struct {
		rule v1alpha1.OptionRule
		want string
	}{
		{pin("a"), "a"},
		{v1alpha1.OptionRule{Mode: "pin", Values: []string{"a", "b"}}, ""},
		{v1alpha1.OptionRule{Mode: "default", Default: "d", Values: []string{"x"}}, "d"},
		{v1alpha1.OptionRule{Mode: "allowList", Default: "b", Values: []string{"a", "b"}}, "b"},
		{v1alpha1.OptionRule{Mode: "allowList", Default: "z", Values: []string{"a", "b"}}, ""},
		{v1alpha1.OptionRule{Mode: "recommended", Default: "a", Values: []string{"a"}}, ""},
	} {
		if got := (policy.ResolvedRule{Rule: tc.rule}).Preselect(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.rule, got, tc.want)
		}
	}
}

// nutanixCreate is a create in payments/prod on a nutanix ProviderConfig.
func nutanixCreate(policies ...v1alpha1.ClusterCreationPolicy) policy.ClusterRequest {
	r := acCreate(acAlice, "prod", nil)
	r.ProviderConfig.Spec.Provider = "nutanix"
	r.Policies = policies
	return r
}

func TestCreationPolicyEnforcement(t *testing.T) {
	const imgAllow = `spec.infrastructureOverride.nutanix.imageUUID: Forbidden: ClusterCreationPolicy "payments-images" allow-lists image to [img-a img-b]; got "img-x"`
	const netPin = `spec.infrastructureOverride.nutanix.subnetUUID: Forbidden: ClusterCreationPolicy "prod-network" pins network to [net-1]; got "net-2"`
	teamImages := ccp("payments-images", teamPayments, nil, map[string]v1alpha1.OptionRule{"image": allow("img-a", "img-b")})
	prodNetwork := ccp("prod-network", paymentsProd, nil, map[string]v1alpha1.OptionRule{"network": pin("net-1")})
	set := func(r policy.ClusterRequest, image, subnet string) policy.ClusterRequest {
		policy.SetOptionValue(r.Cluster, "nutanix", "image", image)
		policy.SetOptionValue(r.Cluster, "nutanix", "network", subnet)
		return r
	}
	// no policies: nothing is checked
	acExpect(t, set(nutanixCreate(), "img-x", "net-2"), "")
	// a team allow-list refusing an image
	d := acExpect(t, set(nutanixCreate(teamImages), "img-x", ""), imgAllow)
	c := acFindCheck(t, d, policy.RuleCreationPolicy+"image")
	if c.Policy != "payments-images" || c.Limit != "[img-a img-b]" || c.Requested != "img-x" || c.ClientSide {
		t.Errorf("check: %+v", c)
	}
	acExpect(t, set(nutanixCreate(teamImages), "img-b", ""), "")
	// an empty value passes (the ProviderConfig's own value is used)
	acExpect(t, set(nutanixCreate(teamImages, prodNetwork), "", ""), "")
	// two violations, in the order image, network
	acExpect(t, set(nutanixCreate(prodNetwork, teamImages), "img-x", "net-2"), "["+imgAllow+", "+netPin+"]")
	// an environment pin applies only in that environment
	r := set(nutanixCreate(prodNetwork), "", "net-2")
	r.Cluster.Labels[v1alpha1.LabelEnvironment] = "dev"
	acExpect(t, r, "")
	// default and recommended allow anything
	soft := ccp("soft", platformWide, nil, map[string]v1alpha1.OptionRule{
		"image":   {Mode: v1alpha1.ModeDefault, Default: "img-a"},
		"network": {Mode: v1alpha1.ModeRecommended, Values: []string{"net-1"}, RecommendedReason: "fast"}})
	acExpect(t, set(nutanixCreate(soft), "img-x", "net-2"), "")
	// a more specific tier wins: the team's allow-list replaces a platform pin
	platformPin := ccp("platform", platformWide, nil, map[string]v1alpha1.OptionRule{"image": pin("img-z")})
	acExpect(t, set(nutanixCreate(platformPin, teamImages), "img-a", ""), "")
	// harvester: the field names differ; cluster and storageContainer do not apply
	hv := nutanixCreate(ccp("h", platformWide, nil, map[string]v1alpha1.OptionRule{"image": pin("ubuntu"), "cluster": pin("c1")}))
	hv.ProviderConfig.Spec.Provider = "harvester"
	policy.SetOptionValue(hv.Cluster, "harvester", "image", "rocky")
	acExpect(t, hv, `spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "h" pins image to [ubuntu]; got "rocky"`)
	// after the ProviderConfig scope check, before the ProviderConfig and team limits
	r = set(nutanixCreate(teamImages), "img-x", "")
	r.ProviderConfig.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
	zero := int32(0)
	r.Team.Spec.ResourceLimits.MaxClusters = &zero
	dr := policy.AdmitCluster(r)
	got := acErrString(dr.Err())
	scope, img, quota := strings.Index(got, "is scoped to team"), strings.Index(got, "allow-lists image"), strings.Index(got, "team quota limits")
	if scope < 0 || img < scope || quota < img {
		t.Errorf("order: %s", got)
	}
	// an existing cluster is refused on scale after a new allow-list: no exemption on update
	old := acTC("c1", "prod", acAlice)
	policy.SetOptionValue(&old, "nutanix", "image", "img-x")
	cur := *old.DeepCopy()
	cur.Spec.Workers.Replicas++
	u := acUpdate(old, cur, acAlice, nil)
	u.ProviderConfig.Spec.Provider = "nutanix"
	u.Policies = []v1alpha1.ClusterCreationPolicy{teamImages}
	acExpect(t, u, imgAllow)
}

// TestProviderRefUnset: the server stops after the environment checks; the tools say so.
func TestProviderRefUnset(t *testing.T) {
	r := nutanixCreate(ccp("p", platformWide, nil, map[string]v1alpha1.OptionRule{"image": pin("a")}))
	policy.SetOptionValue(r.Cluster, "nutanix", "image", "b")
	r.Cluster.Spec.ProviderConfigRef = nil
	d := acExpect(t, r, "")
	c := acFindCheck(t, d, policy.RuleProviderRefUnset)
	if !c.Allowed || !strings.Contains(c.Warning, "the server skips the ProviderConfig, ClusterCreationPolicy and team-limit checks") {
		t.Errorf("check: %+v", c)
	}
}

func TestAdmitPolicyCases(t *testing.T) {
	teams := map[string]*v1alpha1.Team{"payments": {ObjectMeta: metav1.ObjectMeta{Name: "payments"},
		Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}}}
	lookup := func(n string) *v1alpha1.Team { return teams[n] }
	stored := []v1alpha1.ClusterCreationPolicy{
		ccp("images", teamPayments, nil, map[string]v1alpha1.OptionRule{"image": allow("a"), "network": allow("n")}),
		ccp("harvester", teamPayments, []v1alpha1.PolicyProviderType{"harvester"}, map[string]v1alpha1.OptionRule{"image": allow("a")}),
		ccp("prod", paymentsProd, nil, map[string]v1alpha1.OptionRule{"image": allow("a")}),
	}
	admit := func(p v1alpha1.ClusterCreationPolicy) string {
		d := policy.AdmitPolicy(policy.PolicyRequest{Operation: policy.Create, Policy: &p, Team: lookup, Others: stored})
		return acErrString(d.Err())
	}
	for _, tc := range []struct {
		name string
		p    v1alpha1.ClusterCreationPolicy
		want string
	}{
		{"valid", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"image": allow("a")}), "<allowed>"},
		{"team not found", ccp("new", v1alpha1.PolicyScope{Team: &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: "nope"}}}, nil, nil),
			`spec.scope.team.teamRef.name: Not found: "nope"`},
		{"team and environment: team not found, environment not checked", ccp("new", v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{
			TeamRef: v1alpha1.LocalObjectReference{Name: "nope"}, EnvironmentName: "qa"}}, nil, nil),
			`spec.scope.teamAndEnvironment.teamRef.name: Not found: "nope"`},
		{"environment not found", ccp("new", v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{
			TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}, EnvironmentName: "qa"}}, nil, nil),
			`spec.scope.teamAndEnvironment.environmentName: Not found: "qa"`},
		{"unknown option", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"kubernetesVersion": pin("v1.30.0")}),
			`spec.options[kubernetesVersion]: Unsupported value: "kubernetesVersion": supported values: "image", "network", "cluster", "storageContainer"`},
		{"pin with two values", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"image": {Mode: "pin", Values: []string{"a", "b"}}}),
			`spec.options[image].values: Invalid value: ["a","b"]: mode "pin" requires exactly one value, got 2`},
		{"pin with none", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"image": {Mode: "pin"}}),
			`spec.options[image].values: Invalid value: null: mode "pin" requires exactly one value, got 0`},
		{"allowList without values", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"network": {Mode: "allowList"}}),
			`spec.options[network].values: Required value: at least one value is required when mode is "allowList"`},
		{"recommended without values", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"cluster": {Mode: "recommended"}}),
			`spec.options[cluster].values: Required value: at least one value is required when mode is "recommended"`},
		{"default without default", ccp("new", platformWide, nil, map[string]v1alpha1.OptionRule{"storageContainer": {Mode: "default", Values: []string{"x"}}}),
			`spec.options[storageContainer].default: Required value: default value is required when mode is "default"`},
		{"same-tier conflicts", ccp("new", teamPayments, nil, map[string]v1alpha1.OptionRule{"network": allow("n"), "image": allow("b")}),
			`[spec.options: Forbidden: conflicts with ClusterCreationPolicy "harvester" on option types [image] at the same tier, ` +
				`spec.options: Forbidden: conflicts with ClusterCreationPolicy "images" on option types [image network] at the same tier]`},
		{"providers that do not overlap do not conflict", ccp("new", teamPayments, []v1alpha1.PolicyProviderType{"nutanix"},
			map[string]v1alpha1.OptionRule{"cluster": pin("c")}), "<allowed>"},
		{"its own name is skipped (an update)", ccp("images", teamPayments, nil, map[string]v1alpha1.OptionRule{"image": allow("a", "b")}),
			`spec.options: Forbidden: conflicts with ClusterCreationPolicy "harvester" on option types [image] at the same tier`},
		{"two scopes: the CRD's rule, alone", ccp("new", v1alpha1.PolicyScope{PlatformWide: &v1alpha1.PlatformWideScope{}, Team: &v1alpha1.TeamScope{}}, nil,
			map[string]v1alpha1.OptionRule{"image": {Mode: "pin"}}),
			`spec.scope: Invalid value: "object": exactly one of platformWide, team, or teamAndEnvironment must be set`},
	} {
		if got := admit(tc.p); got != tc.want {
			t.Errorf("%s:\n got: %s\nwant: %s", tc.name, got, tc.want)
		}
	}
	// delete is not checked
	p := ccp("x", v1alpha1.PolicyScope{}, nil, nil)
	if d := policy.AdmitPolicy(policy.PolicyRequest{Operation: policy.Delete, Policy: &p}); !d.Allowed() {
		t.Error("delete checked")
	}
}
