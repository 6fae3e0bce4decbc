package policy

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Rule ids of the NetworkPool webhook (docs/rules.md §14).
const (
	RuleNetworkPoolSpec     = "networkpool-spec"
	RuleNetworkPoolCIDR     = "networkpool-cidr-grow"
	RuleNetworkPoolNarrow   = "networkpool-ranges-narrow"
	RuleNetworkPoolAllocate = "networkpool-delete-allocated"
)

// PoolDecision is the NetworkPool webhook's answer: the warnings it returns and, when it
// refuses, the rule and the error exactly as the server words it.
type PoolDecision struct {
	Warnings []string
	Rule     string
	Err      error
}

// AdmitNetworkPool decides a NetworkPool create, update or delete like Butler's NetworkPool
// webhook. allocations are the IPAllocations labelled with the pool's name
// (v1alpha1.LabelNetworkPool) in every namespace; they are read on update and delete only.
// As on the server:
//   - create and update check the spec's consistency (ValidatePoolSpec) and warn about the
//     deprecated start/end; an update that passes returns no warnings (the server drops
//     them), one refused by the spec check returns them;
//   - an update changing spec.cidr must keep the old CIDR inside the new one;
//   - an update (whenever tenantAllocation has ranges) may not leave an Allocated
//     IPAllocation's addresses outside them;
//   - a delete is refused while any IPAllocation of the pool is Allocated (the first in
//     namespace and name order is named).
func AdmitNetworkPool(op Operation, old, pool *v1alpha1.NetworkPool, allocations []v1alpha1.IPAllocation) PoolDecision {
	allocs := slices.Clone(allocations)
	slices.SortStableFunc(allocs, func(a, b v1alpha1.IPAllocation) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	switch op {
	case Create, "":
		w, err := poolSpecCheck(pool)
		return poolDecision(w, RuleNetworkPoolSpec, err)
	case Update:
		w, err := poolSpecCheck(pool)
		if err != nil {
			return poolDecision(w, RuleNetworkPoolSpec, err)
		}
		if old != nil && pool.Spec.CIDR != old.Spec.CIDR {
			contained, cerr := cidrContains(pool.Spec.CIDR, old.Spec.CIDR)
			p := field.NewPath("spec", "cidr")
			switch {
			case cerr != nil:
				return poolDecision(nil, RuleNetworkPoolCIDR, field.ErrorList{field.Invalid(p, pool.Spec.CIDR,
					fmt.Sprintf("failed to validate CIDR containment: %v", cerr))}.ToAggregate())
			case !contained:
				return poolDecision(nil, RuleNetworkPoolCIDR, field.ErrorList{field.Forbidden(p, fmt.Sprintf(
					"new CIDR %q does not contain the previous CIDR %q; shrinking a pool may orphan existing allocations",
					pool.Spec.CIDR, old.Spec.CIDR))}.ToAggregate())
			}
		}
		return poolDecision(nil, RuleNetworkPoolNarrow, narrowing(pool, allocs))
	case Delete:
		for i := range allocs {
			a := &allocs[i]
			if a.Status.Phase == v1alpha1.IPAllocationPhaseAllocated {
				return poolDecision(nil, RuleNetworkPoolAllocate, field.ErrorList{field.Forbidden(field.NewPath("metadata", "name"), fmt.Sprintf(
					"cannot delete NetworkPool %q: IPAllocation %q in namespace %q is still in phase %s",
					pool.Name, a.Name, a.Namespace, v1alpha1.IPAllocationPhaseAllocated))}.ToAggregate())
			}
		}
	}
	return PoolDecision{}
}

func poolDecision(w []string, rule string, err error) PoolDecision {
	if err == nil {
		return PoolDecision{Warnings: w}
	}
	return PoolDecision{Warnings: w, Rule: rule, Err: err}
}

// PoolWarnings are the server's warnings about a pool's deprecated start/end.
func PoolWarnings(pool *v1alpha1.NetworkPool) []string {
	ta := pool.Spec.TenantAllocation
	if ta == nil {
		return nil
	}
	//lint:ignore SA1019 the server still reads the deprecated start/end and warns about them; so does this
	start, end := ta.Start, ta.End
	hasStartEnd, hasRanges := start != "" && end != "", len(ta.Ranges) > 0
	switch {
	case hasStartEnd && hasRanges:
		return []string{"Start/End are ignored when Ranges is present; remove them"}
	case hasStartEnd:
		return []string{fmt.Sprintf("Start/End fields are deprecated; migrate to Ranges. Equivalent configuration:\n"+
			"  tenantAllocation:\n    ranges:\n    - start: %s\n      end: %s", start, end)}
	}
	return nil
}

// poolSpecCheck is the server's spec check: each problem ValidatePoolSpec finds becomes
// spec: Invalid value: "<cidr>": <problem>.
func poolSpecCheck(pool *v1alpha1.NetworkPool) ([]string, error) {
	w := PoolWarnings(pool)
	reserved := make([]string, 0, len(pool.Spec.Reserved))
	for _, r := range pool.Spec.Reserved {
		reserved = append(reserved, r.CIDR)
	}
	problems := ValidatePoolSpec(pool.Spec.CIDR, pool.Spec.TenantAllocation.EffectiveRanges(), reserved)
	if len(problems) == 0 {
		return w, nil
	}
	errs := make(field.ErrorList, 0, len(problems))
	for _, p := range problems {
		errs = append(errs, field.Invalid(field.NewPath("spec"), pool.Spec.CIDR, p))
	}
	return w, errs.ToAggregate()
}

var errInvalidCIDR = errors.New("invalid CIDR notation")

// parsePoolCIDR is the first and last address of an IPv4 CIDR, with the server's errors.
func parsePoolCIDR(cidr string) (first, last uint32, err error) {
	_, n, err := net.ParseCIDR(cidr)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", errInvalidCIDR, err)
	}
	ones, bits := n.Mask.Size()
	if bits != 32 {
		return 0, 0, fmt.Errorf("%w: only IPv4 supported", errInvalidCIDR)
	}
	first = binary.BigEndian.Uint32(n.IP.To4())
	size := uint64(1) << uint(bits-ones)
	return first, uint32(uint64(first) + size - 1), nil
}

func ipv4(s string) (uint32, bool) {
	ip := net.ParseIP(s).To4()
	if ip == nil {
		return 0, false
	}
	return binary.BigEndian.Uint32(ip), true
}

// cidrContains reports whether inner lies inside outer.
func cidrContains(outer, inner string) (bool, error) {
	_, on, err := net.ParseCIDR(outer)
	if err != nil {
		return false, fmt.Errorf("invalid outer CIDR %q: %w", outer, err)
	}
	first, last, err := parsePoolCIDR(inner)
	if err != nil {
		return false, fmt.Errorf("invalid inner CIDR %q: %w", inner, err)
	}
	return on.Contains(u32IP(first)) && on.Contains(u32IP(last)), nil
}

func u32IP(n uint32) net.IP {
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, n)
	return ip
}

// ValidatePoolSpec lists what is inconsistent in a pool, with the server's wording: the
// CIDR (nothing else is checked when it is invalid), reserved CIDRs outside it, each
// range's addresses, order, overlap and place in the CIDR, and reserved CIDRs straddling a
// range's boundary.
func ValidatePoolSpec(cidr string, ranges []v1alpha1.IPRange, reserved []string) []string {
	var out []string
	if _, _, err := parsePoolCIDR(cidr); err != nil {
		return []string{fmt.Sprintf("invalid pool CIDR: %v", err)}
	}
	_, pool, _ := net.ParseCIDR(cidr)
	for _, r := range reserved {
		ok, err := cidrContains(cidr, r)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("invalid reserved CIDR %q: %v", r, err))
		case !ok:
			out = append(out, fmt.Sprintf("reserved CIDR %q is not within pool CIDR %q", r, cidr))
		}
	}
	for i, r := range ranges {
		s, okS := ipv4(r.Start)
		e, okE := ipv4(r.End)
		switch {
		case !okS:
			out = append(out, fmt.Sprintf("ranges[%d].start %q is not a valid IPv4 address", i, r.Start))
			continue
		case !okE:
			out = append(out, fmt.Sprintf("ranges[%d].end %q is not a valid IPv4 address", i, r.End))
			continue
		case s > e:
			out = append(out, fmt.Sprintf("ranges[%d] start %s is after end %s", i, r.Start, r.End))
			continue
		}
		if !pool.Contains(u32IP(s)) || !pool.Contains(u32IP(e)) {
			out = append(out, fmt.Sprintf("ranges[%d] (%s-%s) falls outside pool CIDR %s", i, r.Start, r.End, cidr))
		}
		if i > 0 {
			if prev, ok := ipv4(ranges[i-1].End); ok && s <= prev {
				out = append(out, fmt.Sprintf(
					"ranges must be sorted by start IP and non-overlapping; ranges[%d].start (%s) must be greater than ranges[%d].end (%s)",
					i, r.Start, i-1, ranges[i-1].End))
			}
		}
	}
	for _, res := range reserved {
		rs, re, err := parsePoolCIDR(res)
		if err != nil {
			continue // reported above
		}
		for i, r := range ranges {
			s, okS := ipv4(r.Start)
			e, okE := ipv4(r.End)
			if !okS || !okE {
				continue
			}
			if (rs >= s && rs <= e) != (re >= s && re <= e) {
				out = append(out, fmt.Sprintf("reserved CIDR %s straddles ranges[%d] boundary (%s-%s)", res, i, r.Start, r.End))
			}
		}
	}
	return out
}

// narrowing refuses tenant ranges that leave an Allocated IPAllocation's addresses out.
func narrowing(pool *v1alpha1.NetworkPool, allocs []v1alpha1.IPAllocation) error {
	ranges := pool.Spec.TenantAllocation.EffectiveRanges()
	if len(ranges) == 0 {
		return nil // no ranges: the whole CIDR, nothing narrowed
	}
	type bounds struct{ s, e uint32 }
	bs := make([]bounds, 0, len(ranges))
	for _, r := range ranges {
		s, okS := ipv4(r.Start)
		e, okE := ipv4(r.End)
		if !okS || !okE {
			return nil // the spec check reports it
		}
		bs = append(bs, bounds{s, e})
	}
	within := func(ip uint32) bool {
		for _, b := range bs {
			if ip >= b.s && ip <= b.e {
				return true
			}
		}
		return false
	}
	p := field.NewPath("spec", "tenantAllocation")
	var errs field.ErrorList
	for i := range allocs {
		a := &allocs[i]
		if a.Status.Phase != v1alpha1.IPAllocationPhaseAllocated {
			continue
		}
		for _, addr := range a.Status.Addresses {
			ip, ok := ipv4(addr)
			if ok && !within(ip) {
				errs = append(errs, field.Forbidden(p, fmt.Sprintf(
					"cannot narrow tenant allocation ranges: IPAllocation %q has address %s outside the proposed ranges. Migrate or delete affected allocations first",
					a.Name, addr)))
				break
			}
		}
		if len(a.Status.Addresses) == 0 && a.Status.StartAddress != "" {
			s, okS := ipv4(a.Status.StartAddress)
			e, okE := ipv4(a.Status.EndAddress)
			if okS && okE && (!within(s) || !within(e)) {
				errs = append(errs, field.Forbidden(p, fmt.Sprintf(
					"cannot narrow tenant allocation ranges: IPAllocation %q has addresses %s-%s outside the proposed ranges. Migrate or delete affected allocations first",
					a.Name, a.Status.StartAddress, a.Status.EndAddress)))
			}
		}
	}
	return errs.ToAggregate()
}
