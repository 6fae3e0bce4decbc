package shared

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// The provider options ClusterCreationPolicies curate, by flag (docs/cluster-creation-policies.md).
var optionFlags = []struct{ flag, option, usage string }{
	{"image", v1alpha1.OptionImage, "Image (nutanix: image UUID; harvester: image name)"},
	{"network", v1alpha1.OptionNetwork, "Network (nutanix: subnet UUID; harvester: namespace/name)"},
	{"nutanix-cluster", v1alpha1.OptionCluster, "Nutanix cluster UUID"},
	{"storage-container", v1alpha1.OptionStorageContainer, "Nutanix storage container UUID"},
}

func addOptionFlags(fl *pflag.FlagSet, o *CreateSpec) {
	o.options = map[string]*string{}
	for _, f := range optionFlags {
		v := new(string)
		o.options[f.option] = v
		fl.StringVar(v, f.flag, "", f.usage+", under spec.infrastructureOverride")
	}
}

// ExplainedOption is one provider option of --explain: its value, where it came from, and
// the policy rule that applies to it.
type ExplainedOption struct {
	Option            string        `json:"option"`
	Field             string        `json:"field,omitempty"`
	Value             string        `json:"value,omitempty"`
	Source            policy.Source `json:"source,omitempty"`
	Policy            string        `json:"policy,omitempty"`
	Tier              string        `json:"tier,omitempty"`
	Mode              string        `json:"mode,omitempty"`
	Values            []string      `json:"values,omitempty"`
	Default           string        `json:"default,omitempty"`
	RecommendedReason string        `json:"recommendedReason,omitempty"`
}

// applyOptions writes the option flags into the cluster (a flag the provider has no field
// for is a usage error) and, where the user gave none, the value the console pre-selects
// (a pin's single value, a default) with its source "policy NAME". It returns the
// policies for the preflight and the options for --explain.
func applyOptions(ctx context.Context, warn io.Writer, s store.Reader, c *v1alpha1.TenantCluster, pc *v1alpha1.ProviderConfig, o *CreateSpec) ([]v1alpha1.ClusterCreationPolicy, []ExplainedOption, error) {
	provider := ""
	if pc != nil {
		provider = pc.Spec.Provider
	}
	for _, fl := range optionFlags {
		v := *o.options[fl.option]
		if v == "" {
			continue
		}
		if pc == nil {
			return nil, nil, cmdutil.UsageError("--%s: ProviderConfig %q was not found, so the field for %s is unknown", fl.flag, c.Spec.ProviderConfigRef.Name, fl.option)
		}
		if !policy.SetOptionValue(c, provider, fl.option, v) {
			return nil, nil, cmdutil.UsageError("--%s: provider %q (ProviderConfig %q) has no field for the %s option", fl.flag, provider, pc.Name, fl.option)
		}
	}
	policies, err := s.ListClusterCreationPolicies(ctx)
	if apierrors.IsForbidden(err) {
		// Who may not read the policies can still create: the server applies them.
		fmt.Fprintf(warn, "Warning: cannot read ClusterCreationPolicies, so they are not checked here (the server applies them): %v\n", err)
		policies, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if pc == nil {
		return policies, nil, nil
	}
	rules := map[string]policy.ResolvedRule{}
	for _, r := range policy.ResolvePolicies(policies, policy.PolicyTargetOf(c, pc)) {
		rules[r.Option] = r
	}
	var out []ExplainedOption
	for _, fl := range optionFlags {
		path := policy.OptionField(provider, fl.option)
		r, ruled := rules[fl.option]
		if path == nil && !ruled {
			continue
		}
		e := ExplainedOption{Option: fl.option}
		if path != nil {
			e.Field = path.String()
		}
		switch {
		case *o.options[fl.option] != "":
			e.Value, e.Source = *o.options[fl.option], policy.SourceExplicit
		case ruled && path != nil && r.Preselect() != "":
			e.Value, e.Source = r.Preselect(), policy.Source("policy "+r.Policy)
			policy.SetOptionValue(c, provider, fl.option, e.Value)
		}
		if ruled {
			e.Policy, e.Tier, e.Mode = r.Policy, r.Tier.String(), r.Rule.Mode
			e.Values, e.Default, e.RecommendedReason = r.Rule.Values, r.Rule.Default, r.Rule.RecommendedReason
		}
		if e.Value != "" || ruled { // an option no one set or curates is not news
			out = append(out, e)
		}
	}
	return policies, out, nil
}
