package edit

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/crdexplain"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Changes are the spec fields the flags set, each only when its flag is given.
type Changes struct {
	cpu, workers          int32
	memory, disk, version string
	CPU, Workers          *int32
	Memory, Disk          *resource.Quantity
	KubernetesVersion     *string
}

func (c *Changes) addFlags(fl *pflag.FlagSet) {
	fl.Int32Var(&c.cpu, "cpu", 0, "vCPUs per worker (spec.workers.machineTemplate.cpu)")
	fl.StringVar(&c.memory, "memory", "", "Memory per worker, a quantity such as 32Gi (spec.workers.machineTemplate.memory)")
	fl.StringVar(&c.disk, "disk", "", "Disk per worker, a quantity such as 200Gi (spec.workers.machineTemplate.diskSize)")
	fl.StringVar(&c.version, "kubernetes-version", "", "Kubernetes version, e.g. v1.32.0 (spec.kubernetesVersion)")
	fl.Int32VarP(&c.workers, "workers", "w", 0, "Worker nodes (spec.workers.replicas)")
}

// Any reports whether a flag set a field.
func (c *Changes) Any() bool {
	return c.CPU != nil || c.Workers != nil || c.Memory != nil || c.Disk != nil || c.KubernetesVersion != nil
}

// parse checks the flags given, before anything is read: quantities parse and are
// positive, the version has the CRD's form, and integers are within the CRD's bounds.
func (c *Changes) parse(fl *pflag.FlagSet) error {
	if fl.Changed("cpu") {
		if err := withinCRD("cpu", "spec.workers.machineTemplate.cpu", c.cpu); err != nil {
			return err
		}
		c.CPU = &c.cpu
	}
	if fl.Changed("workers") {
		if err := withinCRD("workers", "spec.workers.replicas", c.workers); err != nil {
			return err
		}
		c.Workers = &c.workers
	}
	var err error
	if fl.Changed("memory") {
		if c.Memory, err = quantity("memory", c.memory); err != nil {
			return err
		}
	}
	if fl.Changed("disk") {
		if c.Disk, err = quantity("disk", c.disk); err != nil {
			return err
		}
	}
	if fl.Changed("kubernetes-version") {
		v, err := policy.NormalizeVersion(c.version)
		if err != nil {
			return cmdutil.UsageError("--kubernetes-version: %v", err)
		}
		c.KubernetesVersion = &v
	}
	return nil
}

// Apply is spec with the flags' fields set.
func (c *Changes) Apply(spec v1alpha1.TenantClusterSpec) v1alpha1.TenantClusterSpec {
	out := *spec.DeepCopy()
	mt := &out.Workers.MachineTemplate
	if c.CPU != nil {
		mt.CPU = *c.CPU
	}
	if c.Memory != nil {
		mt.Memory = c.Memory.DeepCopy()
	}
	if c.Disk != nil {
		mt.DiskSize = c.Disk.DeepCopy()
	}
	if c.Workers != nil {
		out.Workers.Replicas = *c.Workers
	}
	if c.KubernetesVersion != nil {
		out.KubernetesVersion = *c.KubernetesVersion
	}
	return out
}

func quantity(flag, s string) (*resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return nil, cmdutil.UsageError("--%s: %q is not a quantity (such as 32Gi): %v", flag, s, err)
	}
	if q.Sign() <= 0 {
		return nil, cmdutil.UsageError("--%s must be positive, got %s", flag, s)
	}
	return &q, nil
}

// withinCRD checks an integer flag against the minimum and maximum the TenantCluster CRD
// the tools carry gives its field, as the server's schema validation would.
func withinCRD(flag, path string, v int32) error {
	k, err := crdexplain.FindKind("tenantcluster")
	if err != nil {
		return err
	}
	f, err := crdexplain.FindField(k, path)
	if err != nil {
		return fmt.Errorf("internal error: the TenantCluster CRD has no %s: %w", path, err)
	}
	if m := f.Schema.Minimum; m != nil && float64(v) < *m {
		return cmdutil.UsageError("--%s must be at least %v (%s's minimum in the TenantCluster CRD), got %d", flag, *m, path, v)
	}
	if m := f.Schema.Maximum; m != nil && float64(v) > *m {
		return cmdutil.UsageError("--%s must be at most %v (%s's maximum in the TenantCluster CRD), got %d", flag, *m, path, v)
	}
	return nil
}
