package teamedit

import (
	"strconv"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// ClusterDefaultKeys are the keys --cluster-default accepts, in clusterDefaults order.
var ClusterDefaultKeys = []string{
	policy.FieldKubernetesVersion, policy.FieldWorkerCount, policy.FieldWorkerCPU,
	policy.FieldWorkerMemoryGi, policy.FieldWorkerDiskGi, policy.FieldDefaultAddons,
}

// minimums are the CRD's minimums of the integer keys: the server would refuse less.
var minimums = map[string]int64{
	policy.FieldWorkerCount:    0,
	policy.FieldWorkerCPU:      1,
	policy.FieldWorkerMemoryGi: 1,
	policy.FieldWorkerDiskGi:   10,
}

// DefaultSetting is one --cluster-default KEY=VALUE. Clear is true for "KEY=" (remove
// the key).
type DefaultSetting struct {
	Key     string
	Version string
	Int     int32
	Addons  []string
	Clear   bool
}

// ParseClusterDefault reads KEY=VALUE. kubernetesVersion is checked and written as
// vX.Y.Z; the worker keys must be whole numbers that fit an int32 and respect the CRD
// minimums; defaultAddons is a comma-separated list. With allowClear, an empty value asks
// to remove the key.
func ParseClusterDefault(s string, allowClear bool) (DefaultSetting, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: want KEY=VALUE, KEY one of %s", s, strings.Join(ClusterDefaultKeys, ", "))
	}
	key := ""
	for _, known := range ClusterDefaultKeys {
		if strings.EqualFold(strings.TrimSpace(k), known) {
			key = known
		}
	}
	if key == "" {
		return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: unknown key %q (valid: %s)", s, k, strings.Join(ClusterDefaultKeys, ", "))
	}
	v = strings.TrimSpace(v)
	d := DefaultSetting{Key: key}
	if v == "" {
		if !allowClear {
			return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: the value is empty (an empty value clears a key in env update)", s)
		}
		d.Clear = true
		return d, nil
	}
	switch key {
	case policy.FieldKubernetesVersion:
		ver, err := policy.NormalizeVersion(v)
		if err != nil {
			return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: %v", s, err)
		}
		d.Version = ver
	case policy.FieldDefaultAddons:
		seen := map[string]bool{}
		for _, a := range strings.Split(v, ",") {
			a = strings.TrimSpace(a)
			if a == "" || seen[a] {
				continue
			}
			seen[a] = true
			d.Addons = append(d.Addons, a)
		}
		if len(d.Addons) == 0 {
			return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: no addon named", s)
		}
	default:
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: %s must be a whole number (int32)", s, key)
		}
		if n < minimums[key] {
			return DefaultSetting{}, cmdutil.UsageError("--cluster-default %q: %s must be at least %d", s, key, minimums[key])
		}
		d.Int = int32(n)
	}
	return d, nil
}

// ParseClusterDefaults parses every --cluster-default; a key given twice is a usage error.
func ParseClusterDefaults(values []string, allowClear bool) ([]DefaultSetting, error) {
	var out []DefaultSetting
	seen := map[string]bool{}
	for _, s := range values {
		d, err := ParseClusterDefault(s, allowClear)
		if err != nil {
			return nil, err
		}
		if seen[d.Key] {
			return nil, cmdutil.UsageError("--cluster-default: %s is given more than once", d.Key)
		}
		seen[d.Key] = true
		out = append(out, d)
	}
	return out, nil
}

// ApplyClusterDefaults sets or clears each key on cd.
func ApplyClusterDefaults(cd *v1alpha1.ClusterDefaults, settings []DefaultSetting) {
	for _, d := range settings {
		var n *int32
		if !d.Clear {
			v := d.Int
			n = &v
		}
		switch d.Key {
		case policy.FieldKubernetesVersion:
			cd.KubernetesVersion = d.Version
		case policy.FieldDefaultAddons:
			cd.DefaultAddons = d.Addons
		case policy.FieldWorkerCount:
			cd.WorkerCount = n
		case policy.FieldWorkerCPU:
			cd.WorkerCPU = n
		case policy.FieldWorkerMemoryGi:
			cd.WorkerMemoryGi = n
		case policy.FieldWorkerDiskGi:
			cd.WorkerDiskGi = n
		}
	}
}

// PruneClusterDefaults returns nil for a nil or empty block.
func PruneClusterDefaults(cd *v1alpha1.ClusterDefaults) *v1alpha1.ClusterDefaults {
	if cd == nil {
		return nil
	}
	if len(cd.DefaultAddons) == 0 {
		cd.DefaultAddons = nil
	}
	if cd.KubernetesVersion == "" && cd.WorkerCount == nil && cd.WorkerCPU == nil &&
		cd.WorkerMemoryGi == nil && cd.WorkerDiskGi == nil && cd.DefaultAddons == nil {
		return nil
	}
	return cd
}

// PruneEnvLimits returns nil for a nil or empty block; 0 is no cap, so a 0 key is dropped.
func PruneEnvLimits(l *v1alpha1.EnvironmentLimits) *v1alpha1.EnvironmentLimits {
	if l == nil {
		return nil
	}
	if l.MaxClusters != nil && *l.MaxClusters == 0 {
		l.MaxClusters = nil
	}
	if l.MaxClustersPerMember != nil && *l.MaxClustersPerMember == 0 {
		l.MaxClustersPerMember = nil
	}
	if l.MaxClusters == nil && l.MaxClustersPerMember == nil {
		return nil
	}
	return l
}
