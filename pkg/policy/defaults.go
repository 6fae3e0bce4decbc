package policy

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Source says where a resolved cluster default came from (docs/rules.md §4).
type Source string

// Sources, highest precedence first. SourceTeamAndEnv is only used for defaultAddons,
// whose list merges the team's and the environment's.
const (
	SourceExplicit   Source = "explicit"
	SourceEnv        Source = "env"
	SourceTeam       Source = "team"
	SourceTeamLimits Source = "team limits"
	SourceBuiltIn    Source = "built-in"
	SourceTeamAndEnv Source = "team, env"
)

// Keys of Defaults.Sources: the clusterDefaults field names.
const (
	FieldKubernetesVersion = "kubernetesVersion"
	FieldWorkerCount       = "workerCount"
	FieldWorkerCPU         = "workerCPU"
	FieldWorkerMemoryGi    = "workerMemoryGi"
	FieldWorkerDiskGi      = "workerDiskGi"
	FieldDefaultAddons     = "defaultAddons"
)

// Built-in fallbacks: the TenantCluster CRD defaults, and one worker.
const (
	BuiltInWorkerCount int32 = 1
	BuiltInWorkerCPU   int32 = 4
	BuiltInMemory            = "16Gi"
	BuiltInDisk              = "100Gi"
)

// ErrNoKubernetesVersion is what a caller returns when no Kubernetes version resolves: the
// request names none and neither does a default. The command layer words how to give one.
var ErrNoKubernetesVersion = errors.New("no Kubernetes version: set clusterDefaults.kubernetesVersion on the team or the environment")

// Explicit holds the values the user gave; nil or "" means not given. A non-nil value is
// explicit even when zero: validation, not defaulting, decides whether it is acceptable.
type Explicit struct {
	KubernetesVersion string
	WorkerCount       *int32
	WorkerCPU         *int32
	WorkerMemory      *resource.Quantity
	WorkerDisk        *resource.Quantity
}

// Defaults is the resolved cluster shape. Sources is keyed by the Field* names; a field that
// does not resolve (only kubernetesVersion, or defaultAddons when there are none) has no entry.
type Defaults struct {
	KubernetesVersion string
	WorkerCount       int32
	WorkerCPU         int32
	WorkerMemory      resource.Quantity
	WorkerDisk        resource.Quantity
	Addons            []string
	Sources           map[string]Source
	AddonSources      map[string]Source
}

// VersionError is a malformed Kubernetes version.
type VersionError struct{ Version string }

func (e *VersionError) Error() string {
	return fmt.Sprintf("invalid Kubernetes version %q: want X.Y.Z, for example v1.31.0", e.Version)
}

// NormalizeVersion turns "1.31.0", "v1.31.0" or "V1.31.0" into "v1.31.0", the form the
// TenantCluster CRD requires (^v\d+\.\d+\.\d+$).
func NormalizeVersion(v string) (string, error) {
	s := strings.TrimSpace(v)
	if strings.HasPrefix(s, "v") || strings.HasPrefix(s, "V") {
		s = s[1:]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return "", &VersionError{Version: v}
	}
	for _, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return "", &VersionError{Version: v}
		}
	}
	return "v" + s, nil
}

// isPositive reads an optional clusterDefaults integer. 0 counts as unset, as the controller
// treats it; a workerCount of 0 (allowed by the CRD) would also make an invalid
// TenantCluster (replicas ≥ 1).
func isPositive(p *int32) bool { return p != nil && *p > 0 }

func giQuantity(n int32) resource.Quantity { return resource.MustParse(fmt.Sprintf("%dGi", n)) }

// ResolveDefaults resolves each field, first hit wins: explicit, the environment's
// clusterDefaults (only when env names one of the team's environments), the team's
// clusterDefaults, the team's resourceLimits defaults, built-in. team may be nil. It fails
// only when the winning version is malformed; no version at all is not an error here (the
// field stays "" with no source; callers answer ErrNoKubernetesVersion).
func ResolveDefaults(team *v1alpha1.Team, env string, explicit Explicit) (Defaults, error) {
	d := Defaults{Sources: map[string]Source{}, AddonSources: map[string]Source{}}
	var teamCD, envCD *v1alpha1.ClusterDefaults
	var limits *v1alpha1.TeamResourceLimits
	if team != nil {
		teamCD, limits = team.Spec.ClusterDefaults, team.Spec.ResourceLimits
		if e := team.Environment(env); env != "" && e != nil {
			envCD = e.ClusterDefaults
		}
	}

	if err := resolveVersion(&d, team, env, teamCD, envCD, explicit.KubernetesVersion); err != nil {
		return Defaults{}, err
	}

	// workerCount
	switch {
	case explicit.WorkerCount != nil:
		d.WorkerCount, d.Sources[FieldWorkerCount] = *explicit.WorkerCount, SourceExplicit
	case envCD != nil && isPositive(envCD.WorkerCount):
		d.WorkerCount, d.Sources[FieldWorkerCount] = *envCD.WorkerCount, SourceEnv
	case teamCD != nil && isPositive(teamCD.WorkerCount):
		d.WorkerCount, d.Sources[FieldWorkerCount] = *teamCD.WorkerCount, SourceTeam
	case limits != nil && isPositive(limits.DefaultNodeCount):
		d.WorkerCount, d.Sources[FieldWorkerCount] = *limits.DefaultNodeCount, SourceTeamLimits
	default:
		d.WorkerCount, d.Sources[FieldWorkerCount] = BuiltInWorkerCount, SourceBuiltIn
	}

	// workerCPU; a defaultCPUPerNode quantity is rounded up to whole cores.
	switch {
	case explicit.WorkerCPU != nil:
		d.WorkerCPU, d.Sources[FieldWorkerCPU] = *explicit.WorkerCPU, SourceExplicit
	case envCD != nil && isPositive(envCD.WorkerCPU):
		d.WorkerCPU, d.Sources[FieldWorkerCPU] = *envCD.WorkerCPU, SourceEnv
	case teamCD != nil && isPositive(teamCD.WorkerCPU):
		d.WorkerCPU, d.Sources[FieldWorkerCPU] = *teamCD.WorkerCPU, SourceTeam
	case limits != nil && wholeCores(limits.DefaultCPUPerNode) > 0:
		d.WorkerCPU, d.Sources[FieldWorkerCPU] = wholeCores(limits.DefaultCPUPerNode), SourceTeamLimits
	default:
		d.WorkerCPU, d.Sources[FieldWorkerCPU] = BuiltInWorkerCPU, SourceBuiltIn
	}

	// workerMemoryGi
	switch {
	case explicit.WorkerMemory != nil:
		d.WorkerMemory, d.Sources[FieldWorkerMemoryGi] = explicit.WorkerMemory.DeepCopy(), SourceExplicit
	case envCD != nil && isPositive(envCD.WorkerMemoryGi):
		d.WorkerMemory, d.Sources[FieldWorkerMemoryGi] = giQuantity(*envCD.WorkerMemoryGi), SourceEnv
	case teamCD != nil && isPositive(teamCD.WorkerMemoryGi):
		d.WorkerMemory, d.Sources[FieldWorkerMemoryGi] = giQuantity(*teamCD.WorkerMemoryGi), SourceTeam
	case limits != nil && limits.DefaultMemoryPerNode != nil && limits.DefaultMemoryPerNode.Sign() > 0:
		d.WorkerMemory, d.Sources[FieldWorkerMemoryGi] = limits.DefaultMemoryPerNode.DeepCopy(), SourceTeamLimits
	default:
		d.WorkerMemory, d.Sources[FieldWorkerMemoryGi] = resource.MustParse(BuiltInMemory), SourceBuiltIn
	}

	// workerDiskGi (resourceLimits has no disk default)
	switch {
	case explicit.WorkerDisk != nil:
		d.WorkerDisk, d.Sources[FieldWorkerDiskGi] = explicit.WorkerDisk.DeepCopy(), SourceExplicit
	case envCD != nil && isPositive(envCD.WorkerDiskGi):
		d.WorkerDisk, d.Sources[FieldWorkerDiskGi] = giQuantity(*envCD.WorkerDiskGi), SourceEnv
	case teamCD != nil && isPositive(teamCD.WorkerDiskGi):
		d.WorkerDisk, d.Sources[FieldWorkerDiskGi] = giQuantity(*teamCD.WorkerDiskGi), SourceTeam
	default:
		d.WorkerDisk, d.Sources[FieldWorkerDiskGi] = resource.MustParse(BuiltInDisk), SourceBuiltIn
	}

	mergeAddons(&d, teamCD, envCD)
	return d, nil
}

// wholeCores rounds a CPU quantity up to whole cores; 0 when unset, not positive or too big.
func wholeCores(q *resource.Quantity) int32 {
	if q == nil || q.Sign() <= 0 {
		return 0
	}
	cores := (q.MilliValue() + 999) / 1000
	if cores <= 0 || cores > math.MaxInt32 {
		return 0
	}
	return int32(cores)
}

func resolveVersion(d *Defaults, team *v1alpha1.Team, env string, teamCD, envCD *v1alpha1.ClusterDefaults, explicit string) error {
	type candidate struct {
		value  string
		source Source
		where  string
	}
	cands := []candidate{{explicit, SourceExplicit, ""}}
	if envCD != nil {
		cands = append(cands, candidate{envCD.KubernetesVersion, SourceEnv, fmt.Sprintf("environment %q clusterDefaults.kubernetesVersion", env)})
	}
	if teamCD != nil {
		cands = append(cands, candidate{teamCD.KubernetesVersion, SourceTeam, fmt.Sprintf("team %q clusterDefaults.kubernetesVersion", team.Name)})
	}
	for _, c := range cands {
		if strings.TrimSpace(c.value) == "" {
			continue
		}
		v, err := NormalizeVersion(c.value)
		if err != nil {
			if c.where == "" {
				return err
			}
			return fmt.Errorf("%s: %w", c.where, err)
		}
		d.KubernetesVersion, d.Sources[FieldKubernetesVersion] = v, c.source
		return nil
	}
	return nil
}

// mergeAddons lists the team's default addons, then the environment's, without
// duplicates, in first-seen order.
func mergeAddons(d *Defaults, teamCD, envCD *v1alpha1.ClusterDefaults) {
	add := func(cd *v1alpha1.ClusterDefaults, src Source) {
		if cd == nil {
			return
		}
		for _, a := range cd.DefaultAddons {
			a = strings.TrimSpace(a)
			if a == "" {
				continue
			}
			if _, dup := d.AddonSources[a]; dup {
				continue
			}
			d.Addons = append(d.Addons, a)
			d.AddonSources[a] = src
		}
	}
	add(teamCD, SourceTeam)
	add(envCD, SourceEnv)

	var fromTeam, fromEnv bool
	for _, src := range d.AddonSources {
		fromTeam = fromTeam || src == SourceTeam
		fromEnv = fromEnv || src == SourceEnv
	}
	switch {
	case fromTeam && fromEnv:
		d.Sources[FieldDefaultAddons] = SourceTeamAndEnv
	case fromTeam:
		d.Sources[FieldDefaultAddons] = SourceTeam
	case fromEnv:
		d.Sources[FieldDefaultAddons] = SourceEnv
	}
}
