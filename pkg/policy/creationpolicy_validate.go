package policy

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Rule ids of ClusterCreationPolicy admission.
const (
	RulePolicyScope           = "policy-scope" // the CRD's CEL rule, refused by the API server
	RulePolicyTeamRef         = "policy-team-ref"
	RulePolicyEnvironmentRef  = "policy-environment-ref"
	RulePolicyOptionKey       = "policy-option-key"
	RulePolicyPinValues       = "policy-pin-values"
	RulePolicyValuesRequired  = "policy-values-required"
	RulePolicyDefaultRequired = "policy-default-required"
	RulePolicyConflict        = "policy-conflict"
)

var (
	pathPolicyScope     = field.NewPath("spec", "scope")
	pathPolicyTeamRef   = field.NewPath("spec", "scope", "team", "teamRef", "name")
	pathPolicyTETeamRef = field.NewPath("spec", "scope", "teamAndEnvironment", "teamRef", "name")
	pathPolicyTEEnv     = field.NewPath("spec", "scope", "teamAndEnvironment", "environmentName")
	pathPolicyOptions   = field.NewPath("spec", "options")
)

// PolicyRequest is one ClusterCreationPolicy create or update to admit.
type PolicyRequest struct {
	Operation Operation // Create or Update; "" is Create; Delete is not checked
	Policy    *v1alpha1.ClusterCreationPolicy
	// Team returns the Team of that name, nil when it does not exist.
	Team func(name string) *v1alpha1.Team
	// Others is every stored ClusterCreationPolicy; the one with Policy's name is skipped.
	Others []v1alpha1.ClusterCreationPolicy
}

// AdmitPolicy evaluates a ClusterCreationPolicy create or update like the server
// (docs/cluster-creation-policies.md), collecting every failure in the server's order:
// the scope's references, each option rule (keys in the order image, network, cluster,
// storageContainer, then unknown keys sorted), then one conflict per other policy of the
// same tier and target whose providers overlap and that shares an option key. The CRD's CEL
// rule on the scope comes first and alone: the API server refuses such an object before
// the webhook sees it. What the server does not check is not checked either: that default
// is among values, that the provider has the option, that the values exist, who writes.
func AdmitPolicy(req PolicyRequest) Decision {
	var d Decision
	p := req.Policy
	if p == nil || req.Operation == Delete {
		return d
	}
	deny := func(rule string, err *field.Error) {
		d.Checks = append(d.Checks, Check{Rule: rule, Field: err.Field, Message: err.Error()})
		d.Violations = append(d.Violations, Violation{Rule: rule, Error: err})
	}
	if err := p.Spec.Scope.Validate(pathPolicyScope); err != nil {
		deny(RulePolicyScope, err)
		return d
	}
	policyScopeRefs(p, req.Team, deny)
	for _, key := range optionKeys(p.Spec.Options) {
		policyOptionRule(key, p.Spec.Options[key], deny)
	}
	for _, c := range PolicyConflicts(p, req.Others) {
		deny(RulePolicyConflict, field.Forbidden(pathPolicyOptions, fmt.Sprintf(
			"conflicts with ClusterCreationPolicy %q on option types %v at the same tier", c.Policy, c.Options)))
	}
	return d
}

func policyScopeRefs(p *v1alpha1.ClusterCreationPolicy, teams func(string) *v1alpha1.Team, deny func(string, *field.Error)) {
	team := func(name string) *v1alpha1.Team {
		if teams == nil {
			return nil
		}
		return teams(name)
	}
	s := &p.Spec.Scope
	if s.Team != nil && team(s.Team.TeamRef.Name) == nil {
		deny(RulePolicyTeamRef, field.NotFound(pathPolicyTeamRef, s.Team.TeamRef.Name))
	}
	if te := s.TeamAndEnvironment; te != nil {
		t := team(te.TeamRef.Name)
		switch {
		case t == nil:
			deny(RulePolicyTeamRef, field.NotFound(pathPolicyTETeamRef, te.TeamRef.Name))
		case t.Environment(te.EnvironmentName) == nil:
			deny(RulePolicyEnvironmentRef, field.NotFound(pathPolicyTEEnv, te.EnvironmentName))
		}
	}
}

func policyOptionRule(key string, r v1alpha1.OptionRule, deny func(string, *field.Error)) {
	p := pathPolicyOptions.Key(key)
	if !slices.Contains(v1alpha1.OptionTypes, key) {
		deny(RulePolicyOptionKey, field.NotSupported(p, key, v1alpha1.OptionTypes))
		return
	}
	switch r.Mode {
	case v1alpha1.ModePin:
		if len(r.Values) != 1 {
			deny(RulePolicyPinValues, field.Invalid(p.Child("values"), r.Values,
				fmt.Sprintf("mode %q requires exactly one value, got %d", r.Mode, len(r.Values))))
		}
	case v1alpha1.ModeAllowList, v1alpha1.ModeRecommended:
		if len(r.Values) == 0 {
			deny(RulePolicyValuesRequired, field.Required(p.Child("values"),
				fmt.Sprintf("at least one value is required when mode is %q", r.Mode)))
		}
	case v1alpha1.ModeDefault:
		if r.Default == "" {
			deny(RulePolicyDefaultRequired, field.Required(p.Child("default"),
				fmt.Sprintf("default value is required when mode is %q", r.Mode)))
		}
	}
}

// optionKeys orders a policy's option keys: the known ones in the server's order, then the
// others sorted.
func optionKeys(options map[string]v1alpha1.OptionRule) []string {
	keys := make([]string, 0, len(options))
	for _, k := range v1alpha1.OptionTypes {
		if _, ok := options[k]; ok {
			keys = append(keys, k)
		}
	}
	var other []string
	for k := range options {
		if !slices.Contains(v1alpha1.OptionTypes, k) {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	return append(keys, other...)
}

// PolicyConflict is another policy at the same tier and target as a policy, with
// overlapping providers, sharing option keys.
type PolicyConflict struct {
	Policy  string
	Options []string
}

// PolicyConflicts lists the conflicts of p with the others (by name; p's own name is
// skipped): same tier and target, overlapping providers (an empty list overlaps every
// list) and at least one shared option key.
func PolicyConflicts(p *v1alpha1.ClusterCreationPolicy, others []v1alpha1.ClusterCreationPolicy) []PolicyConflict {
	tier := p.Spec.Scope.Tier()
	team, env := p.Spec.Scope.Target()
	sorted := make([]*v1alpha1.ClusterCreationPolicy, 0, len(others))
	for i := range others {
		sorted = append(sorted, &others[i])
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var out []PolicyConflict
	for _, o := range sorted {
		if o.Name == p.Name || o.Spec.Scope.Tier() != tier {
			continue
		}
		if ot, oe := o.Spec.Scope.Target(); ot != team || oe != env || !providersOverlap(p.Spec.TargetProviders, o.Spec.TargetProviders) {
			continue
		}
		var shared []string
		for _, k := range optionKeys(p.Spec.Options) {
			if _, ok := o.Spec.Options[k]; ok {
				shared = append(shared, k)
			}
		}
		if len(shared) > 0 {
			out = append(out, PolicyConflict{Policy: o.Name, Options: shared})
		}
	}
	return out
}

func providersOverlap(a, b []v1alpha1.PolicyProviderType) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
