// Package list is `policy list`: in butlerctl the ClusterCreationPolicy rules that apply to
// a team and environment, per option the winning policy and what it overrides
// (docs/cluster-creation-policies.md, "Which rule applies"); in butleradm every policy.
package list

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Rule is one option's winning rule in the computed view (--view, docs/output.md).
type Rule struct {
	Option            string   `json:"option"`
	Policy            string   `json:"policy"`
	Tier              string   `json:"tier"`
	Mode              string   `json:"mode"`
	Values            []string `json:"values,omitempty"`
	Default           string   `json:"default,omitempty"`
	RecommendedReason string   `json:"recommendedReason,omitempty"`
	Overrides         []string `json:"overrides,omitempty"`
}

// View is butlerctl policy list's computed view.
type View struct {
	Team        string `json:"team,omitempty"`
	Environment string `json:"environment,omitempty"`
	Provider    string `json:"providerType,omitempty"`
	Rules       []Rule `json:"rules"`
}

// Spec is what policy list prints: the ClusterCreationPolicies, or with --view the resolved
// rules (butlerctl).
var Spec = output.Spec{Objects: true, View: true, List: true, Name: true}

// Store is what policy list reads: the policies, and the team a target names.
type Store = store.Reader

// Options are what policy list runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	// Admin is butleradm's list: every policy, no target.
	Admin  bool
	Target policy.PolicyTarget
}

// NewCmd returns butlerctl's policy list; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the ClusterCreationPolicy rules that apply to a team and environment",
		Example: `  butlerctl policy list --team payments --environment prod --manifests DIR
  butlerctl policy list --team payments -o json --view`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmdutil.TeamFlag(cmd.Flags(), &o.Target.Team, cmdutil.TeamMeaning("The team (without it, only platform-wide policies apply)"))
	cmd.Flags().StringVar(&o.Target.Environment, "environment", "", "The environment (with --team)")
	cmd.Flags().StringVar(&o.Target.Provider, "provider-type", "", "Only policies for this provider type (default: every provider)")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// NewAdminCmd returns butleradm's policy list, of every policy; runF, when not nil, runs
// instead of run.
func NewAdminCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Admin: true}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List every ClusterCreationPolicy",
		Example: `  butleradm policy list --manifests DIR
  butleradm policy list -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, output.Spec{Objects: true, List: true, Name: true})
	return cmd
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.Target.Environment != "" && o.Target.Team == "" {
		return cmdutil.UsageError("--environment needs --team")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	if o.Target.Team != "" {
		if _, err := lookup.TeamEnvironment(ctx, s, o.Target.Team, o.Target.Environment); err != nil {
			return err
		}
	}
	all, err := s.ListClusterCreationPolicies(ctx)
	if err != nil {
		return err
	}
	if o.Admin {
		return o.Printer.Print(every(all))
	}
	applying, rules := Resolve(all, o.Target)
	d := output.Doc{
		Header: []string{"OPTION", "POLICY", "TIER", "MODE", "VALUES", "DEFAULT", "OVERRIDES"},
		Empty:  "No ClusterCreationPolicy applies.",
		View:   View{Team: o.Target.Team, Environment: o.Target.Environment, Provider: o.Target.Provider, Rules: rules},
	}
	for i := range applying {
		d.Items = append(d.Items, output.Item{Object: &applying[i]})
	}
	if o.Print.Human() {
		return o.Printer.Print(byOption(d, rules))
	}
	return o.Printer.Print(d)
}

// byOption is the table: one row per option rather than per policy.
func byOption(d output.Doc, rules []Rule) output.Doc {
	d.Items = nil
	for _, r := range rules {
		d.Items = append(d.Items, output.Item{Cells: []string{r.Option, r.Policy, r.Tier, r.Mode,
			tables.Dash(strings.Join(r.Values, ",")), tables.Dash(r.Default), tables.Dash(strings.Join(r.Overrides, ","))}})
	}
	return d
}

// Resolve returns the policies that apply to t (by name) and per option the winning rule
// with the lower-ranked policies it overrides. With no provider type, every policy counts
// whatever its targetProviders.
func Resolve(all []v1alpha1.ClusterCreationPolicy, t policy.PolicyTarget) ([]v1alpha1.ClusterCreationPolicy, []Rule) {
	tiers := make([]v1alpha1.Tier, len(all))
	var applying []v1alpha1.ClusterCreationPolicy
	for i := range all {
		p := all[i].DeepCopy()
		if t.Provider == "" {
			p.Spec.TargetProviders = nil
		}
		if tiers[i] = policy.PolicyTier(p, t); tiers[i] != v1alpha1.TierNone {
			applying = append(applying, *p)
		}
	}
	rules := []Rule{}
	for _, r := range policy.ResolvePolicies(applying, t) {
		rule := Rule{Option: r.Option, Policy: r.Policy, Tier: r.Tier.String(), Mode: r.Rule.Mode,
			Values: r.Rule.Values, Default: r.Rule.Default, RecommendedReason: r.Rule.RecommendedReason}
		for i := range all {
			if _, ok := all[i].Spec.Options[r.Option]; ok && tiers[i] != v1alpha1.TierNone && all[i].Name != r.Policy {
				rule.Overrides = append(rule.Overrides, fmt.Sprintf("%s (%s)", all[i].Name, tiers[i]))
			}
		}
		rules = append(rules, rule)
	}
	for i := range applying {
		applying[i].Spec.TargetProviders = policyByName(all, applying[i].Name).Spec.TargetProviders
	}
	return applying, rules
}

func policyByName(all []v1alpha1.ClusterCreationPolicy, name string) *v1alpha1.ClusterCreationPolicy {
	for i := range all {
		if all[i].Name == name {
			return &all[i]
		}
	}
	return nil
}

// every is butleradm's list: each policy with its scope and options.
func every(all []v1alpha1.ClusterCreationPolicy) output.Doc {
	d := output.Doc{
		Header: []string{"NAME", "TIER", "TEAM", "ENVIRONMENT", "PROVIDERS", "OPTIONS"},
		Empty:  "No ClusterCreationPolicies found.",
	}
	for i := range all {
		d.Items = append(d.Items, output.Item{Object: &all[i], Cells: policyutil.Cells(&all[i])})
	}
	return d
}
