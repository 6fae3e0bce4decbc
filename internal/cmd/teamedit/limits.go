package teamedit

import (
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// LimitFlags are the team resourceLimits flags shared by team create and team set-limits.
type LimitFlags struct {
	maxClusters, maxNodesPerCluster, maxTotalNodes int32
	maxCPU, maxMemory, maxStorage                  string
}

// LimitFlagNames lists the flags in the order messages name them.
var LimitFlagNames = []string{"max-clusters", "max-nodes-per-cluster", "max-total-nodes", "max-cpu", "max-memory", "max-storage"}

// AddFlags registers the limit flags.
func (l *LimitFlags) AddFlags(fs *pflag.FlagSet) {
	fs.Int32Var(&l.maxClusters, "max-clusters", 0, "resourceLimits.maxClusters: clusters the team may have (0 blocks every create)")
	fs.Int32Var(&l.maxNodesPerCluster, "max-nodes-per-cluster", 0, "resourceLimits.maxNodesPerCluster: worker nodes per cluster")
	fs.Int32Var(&l.maxTotalNodes, "max-total-nodes", 0, "resourceLimits.maxTotalNodes: worker nodes across the team's clusters")
	fs.StringVar(&l.maxCPU, "max-cpu", "", "resourceLimits.maxCPUCores: CPU across the team's workers, a quantity such as 64")
	fs.StringVar(&l.maxMemory, "max-memory", "", "resourceLimits.maxMemory: memory across the team's workers, a quantity such as 256Gi")
	fs.StringVar(&l.maxStorage, "max-storage", "", "resourceLimits.maxStorage: disk across the team's workers, a quantity such as 2Ti")
}

// LimitsPatch holds the limits the user gave; nil fields were not given.
type LimitsPatch struct {
	MaxClusters, MaxNodesPerCluster, MaxTotalNodes *int32
	MaxCPUCores, MaxMemory, MaxStorage             *resource.Quantity
}

// Empty is true when no limit flag was given.
func (p LimitsPatch) Empty() bool {
	return p.MaxClusters == nil && p.MaxNodesPerCluster == nil && p.MaxTotalNodes == nil &&
		p.MaxCPUCores == nil && p.MaxMemory == nil && p.MaxStorage == nil
}

// Parse validates the flags that were given: counts must be 0 or more, quantities must
// parse and not be negative. Errors are usage errors naming the flag.
func (l *LimitFlags) Parse(fs *pflag.FlagSet) (LimitsPatch, error) {
	var p LimitsPatch
	for _, c := range []struct {
		name string
		v    int32
		dst  **int32
	}{
		{"max-clusters", l.maxClusters, &p.MaxClusters},
		{"max-nodes-per-cluster", l.maxNodesPerCluster, &p.MaxNodesPerCluster},
		{"max-total-nodes", l.maxTotalNodes, &p.MaxTotalNodes},
	} {
		if !cmdutil.IsSet(fs, c.name) {
			continue
		}
		if c.v < 0 {
			return LimitsPatch{}, cmdutil.UsageError("--%s must be 0 or more, got %d", c.name, c.v)
		}
		v := c.v
		*c.dst = &v
	}
	for _, q := range []struct {
		name, v, example string
		dst              **resource.Quantity
	}{
		{"max-cpu", l.maxCPU, "64 or 500m", &p.MaxCPUCores},
		{"max-memory", l.maxMemory, "256Gi", &p.MaxMemory},
		{"max-storage", l.maxStorage, "2Ti", &p.MaxStorage},
	} {
		if !cmdutil.IsSet(fs, q.name) {
			continue
		}
		v, err := resource.ParseQuantity(q.v)
		if err != nil {
			return LimitsPatch{}, cmdutil.UsageError("--%s: %q is not a quantity such as %s", q.name, q.v, q.example)
		}
		if v.Sign() < 0 {
			return LimitsPatch{}, cmdutil.UsageError("--%s must be 0 or more, got %q", q.name, q.v)
		}
		*q.dst = &v
	}
	return p, nil
}

// ApplyTo sets the given limits on rl, leaving the others as they are.
func (p LimitsPatch) ApplyTo(rl *v1alpha1.TeamResourceLimits) {
	if p.MaxClusters != nil {
		rl.MaxClusters = p.MaxClusters
	}
	if p.MaxNodesPerCluster != nil {
		rl.MaxNodesPerCluster = p.MaxNodesPerCluster
	}
	if p.MaxTotalNodes != nil {
		rl.MaxTotalNodes = p.MaxTotalNodes
	}
	if p.MaxCPUCores != nil {
		rl.MaxCPUCores = p.MaxCPUCores
	}
	if p.MaxMemory != nil {
		rl.MaxMemory = p.MaxMemory
	}
	if p.MaxStorage != nil {
		rl.MaxStorage = p.MaxStorage
	}
}
