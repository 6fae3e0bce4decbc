package crdexplain

import (
	"fmt"

	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Rule is a rule docs/rules.md states for a field, in a line, with the section it is in.
type Rule struct {
	Section string `json:"section"` // "§5.5 Team limits"
	Text    string `json:"text"`
}

// rules are the rules docs/rules.md states for a field, by kind and path. The text is a
// summary: the section is the statement (a test checks that every section cited exists).
var rules = map[string][]Rule{
	"TenantCluster spec.workers.replicas": {
		{"§5.5 Team limits", "the team's resourceLimits.maxNodesPerCluster caps it, on create and on update (so scaling too)"},
		{"§5.5 Team limits", "the team's resourceLimits.maxTotalNodes caps the team's worker replicas with this cluster's, on create"},
	},
	"TenantCluster spec.kubernetesVersion": {
		{"§6. Team feature restrictions (client-side)", "the team's resourceLimits.allowedKubernetesVersions must match it (on update only a changed version is checked)"},
		{"§6.1 Upgrades: the version path", "cluster upgrade moves it one minor version at a time, or to a later patch"},
	},
	"TenantCluster spec.workers.machineTemplate.cpu": {
		{"§5.5 Team limits", "the team's resourceLimits.maxCPUCores caps the team's total CPU with this cluster's, on create"},
	},
	"TenantCluster spec.workers.machineTemplate.memory": {
		{"§5.5 Team limits", "the team's resourceLimits.maxMemory caps the team's total memory with this cluster's, on create"},
	},
	"TenantCluster spec.workers.machineTemplate.diskSize": {
		{"§5.5 Team limits", "the team's resourceLimits.maxStorage caps the team's total storage with this cluster's, on create"},
	},
	"TenantCluster spec.providerConfigRef": {
		{"§5.4 ProviderConfig", "the ProviderConfig must exist (its namespace defaults to butler-system)"},
		{"§6. Team feature restrictions (client-side)", "its type must be one of the team's resourceLimits.allowedProviders"},
	},
	"Team spec.resourceLimits": {
		{"§8.1 Rules", "only platform admins may set or change it"},
		{"§5.5 Team limits", "an unset field is no limit"},
	},
	"Team spec.resourceLimits.maxNodesPerCluster": {
		{"§5.5 Team limits", "caps each cluster's spec.workers.replicas, on create and on update (so scaling too)"},
	},
	"Team spec.resourceLimits.maxClusters": {
		{"§5.5 Team limits", "a create is refused when the team's clusters + 1 exceed it; 0 allows no creates"},
	},
	"Team spec.resourceLimits.maxTotalNodes": {
		{"§5.5 Team limits", "a create is refused when the team's worker replicas with the new cluster's exceed it"},
	},
	"Team spec.environments": {
		{"§5.3 Environments", "when a team defines environments, its clusters must carry the environment label, set to one of them"},
	},
	"Team spec.environments.limits": {
		{"§8.1 Rules", "only team admins and platform admins may change them; on a new team only platform admins may set them"},
	},
}

// defaulted are the TenantCluster fields a create defaults (docs/rules.md §4), by path: the
// clusterDefaults field policy.ResolveDefaults resolves for it.
var defaulted = map[string]string{
	"spec.kubernetesVersion":                policy.FieldKubernetesVersion,
	"spec.workers.replicas":                 policy.FieldWorkerCount,
	"spec.workers.machineTemplate.cpu":      policy.FieldWorkerCPU,
	"spec.workers.machineTemplate.memory":   policy.FieldWorkerMemoryGi,
	"spec.workers.machineTemplate.diskSize": policy.FieldWorkerDiskGi,
}

// Rules are the rules docs/rules.md states for the field.
func (f *Field) Rules() []Rule { return rules[f.Kind.Kind+" "+f.Path] }

// Default is the default a create gives the field when no team or environment sets one, as
// policy.ResolveDefaults resolves it with no team, and its source; ok is false for a field
// the create does not default. The order it is taken in is docs/rules.md §4's.
func (f *Field) Default() (value, source string, ok bool) {
	key, ok := defaulted[f.Path]
	if f.Kind.Kind != "TenantCluster" || !ok {
		return "", "", false
	}
	d, err := policy.ResolveDefaults(nil, "", policy.Explicit{})
	if err != nil {
		return "", "", false
	}
	src, resolved := d.Sources[key]
	if !resolved {
		return "", "", true // the field is defaulted, but nothing resolves without a team
	}
	switch key {
	case policy.FieldWorkerCount:
		value = fmt.Sprint(d.WorkerCount)
	case policy.FieldWorkerCPU:
		value = fmt.Sprint(d.WorkerCPU)
	case policy.FieldWorkerMemoryGi:
		value = d.WorkerMemory.String()
	case policy.FieldWorkerDiskGi:
		value = d.WorkerDisk.String()
	case policy.FieldKubernetesVersion:
		value = d.KubernetesVersion
	}
	return value, string(src), true
}
