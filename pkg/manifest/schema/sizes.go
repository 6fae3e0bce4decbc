package schema

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Sizes and counts that the CRDs leave unbounded but that the rules add up: a negative
// worker memory lowers a team's usage and turns a denial into an allow. Integer counts
// carry their minimums in the CRDs (Validate checks those); quantities do not, so they are
// checked here. Zero stays legal where it has a meaning: a zero team quota is no limit
// (the server skips it), a zero control-plane request is a request of nothing.
type sizeRule int

const (
	positive    sizeRule = iota // a size of something that exists: > 0
	nonNegative                 // a limit or request: >= 0
)

// maxQuantity bounds every size: near 8Ei a quantity no longer fits an int64 (parsing
// saturates there), and sums of such sizes would be meaningless.
var maxQuantity = resource.MustParse("4Ei")

// tooLarge reports a quantity above maxQuantity. The exact comparison of a quantity in
// thousandths with 4Ei goes through big decimals; one far below the bound is told by its
// approximate value, without allocating.
func tooLarge(q *resource.Quantity) bool {
	if q.AsApproximateFloat64() < maxQuantityFloat/2 {
		return false
	}
	cp := q.DeepCopy() // Cmp may convert q's representation, and the writer compares it
	return cp.Cmp(maxQuantity) > 0
}

var maxQuantityFloat = maxQuantity.AsApproximateFloat64()

// machineTemplatePath is shared: field paths are never changed, only extended.
var machineTemplatePath = field.NewPath("spec", "workers", "machineTemplate")

// semantic reports what the server would accept but the rules cannot use: sizes out of
// range and, for a Team, environment names that differ only in case. written reports
// whether a field was in the file: a zero quantity that was not is merely unset.
func semantic(obj runtime.Object, written func(*field.Path) bool) field.ErrorList {
	var errs field.ErrorList
	// A quantity's path is made only when there is something to say of it (parent, then
	// the path's steps below it): most quantities are fine.
	check := func(q *resource.Quantity, parent *field.Path, rule sizeRule, steps ...string) {
		if q == nil {
			return
		}
		at := func() *field.Path { return parent.Child(steps[0], steps[1:]...) }
		switch s := q.Sign(); {
		case tooLarge(q):
			errs = append(errs, field.Invalid(at(), q.String(), "too large (more than 4Ei)"))
		case s < 0:
			errs = append(errs, field.Invalid(at(), q.String(), "must not be negative"))
		case s == 0 && rule == positive:
			if p := at(); written(p) {
				errs = append(errs, field.Invalid(p, q.String(), "must be greater than zero"))
			}
		}
	}
	switch o := obj.(type) {
	case *v1alpha1.TenantCluster:
		// A zero cpu written in the file is left out of the rendered object: the CRD's
		// minimum sees it through the explicit values (explicitFindings).
		mt := machineTemplatePath
		check(&o.Spec.Workers.MachineTemplate.Memory, mt, positive, "memory")
		check(&o.Spec.Workers.MachineTemplate.DiskSize, mt, positive, "diskSize")
		if o.Spec.ControlPlane != nil && o.Spec.ControlPlane.Resources != nil {
			cp := o.Spec.ControlPlane.Resources
			p := field.NewPath("spec", "controlPlane", "resources")
			for _, c := range []struct {
				name string
				res  *v1alpha1.ComponentResources
			}{{"apiServer", cp.APIServer}, {"controllerManager", cp.ControllerManager}, {"scheduler", cp.Scheduler}} {
				if c.res == nil {
					continue
				}
				for _, a := range []struct {
					name string
					amt  *v1alpha1.ResourceAmounts
				}{{"requests", c.res.Requests}, {"limits", c.res.Limits}} {
					if a.amt != nil {
						check(a.amt.CPU, p, nonNegative, c.name, a.name, "cpu")
						check(a.amt.Memory, p, nonNegative, c.name, a.name, "memory")
					}
				}
			}
		}
	case *v1alpha1.Team:
		if l := o.Spec.ResourceLimits; l != nil {
			p := field.NewPath("spec", "resourceLimits")
			check(l.MaxCPUCores, p, nonNegative, "maxCPUCores")
			check(l.MaxMemory, p, nonNegative, "maxMemory")
			check(l.MaxStorage, p, nonNegative, "maxStorage")
			check(l.DefaultCPUPerNode, p, positive, "defaultCPUPerNode")
			check(l.DefaultMemoryPerNode, p, positive, "defaultMemoryPerNode")
		}
		errs = append(errs, policy.DuplicateEnvironments(o)...)
	}
	return errs
}
