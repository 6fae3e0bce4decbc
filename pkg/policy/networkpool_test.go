//lint:file-ignore SA1019 the deprecated start/end are what these cases feed the server's checks and warnings

package policy_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func npPool(cidr string, mod func(*v1alpha1.NetworkPoolSpec)) *v1alpha1.NetworkPool {
	p := &v1alpha1.NetworkPool{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: "butler-system"},
		Spec: v1alpha1.NetworkPoolSpec{CIDR: cidr, TenantAllocation: &v1alpha1.TenantAllocationConfig{
			Ranges: []v1alpha1.IPRange{{Start: "10.40.1.0", End: "10.40.9.255"}}}}}
	if mod != nil {
		mod(&p.Spec)
	}
	return p
}

func npAlloc(ns, name string, phase v1alpha1.IPAllocationPhase, addrs ...string) v1alpha1.IPAllocation {
	return v1alpha1.IPAllocation{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
		Labels: map[string]string{v1alpha1.LabelNetworkPool: "lab"}},
		Status: v1alpha1.IPAllocationStatus{Phase: phase, Addresses: addrs}}
}

// The messages and warnings of Butler's NetworkPool webhook and of ipam.ValidatePoolSpec,
// byte for byte.
func TestAdmitNetworkPool(t *testing.T) {
	base := npPool("10.40.0.0/16", nil)
	allocated := []v1alpha1.IPAllocation{
		npAlloc("payments", "web-nodes", v1alpha1.IPAllocationPhaseAllocated, "10.40.5.1", "10.40.5.2"),
		npAlloc("payments", "old", "Released", "10.40.9.9"),
	}
	tests := []struct {
		name     string
		op       policy.Operation
		old, new *v1alpha1.NetworkPool
		allocs   []v1alpha1.IPAllocation
		rule     string
		err      string
		warnings []string
	}{
		{"valid create", policy.Create, nil, base, nil, "", "", nil},
		{"invalid CIDR stops the check", policy.Create, nil, npPool("10.40.0.0", nil), nil, policy.RuleNetworkPoolSpec,
			`spec: Invalid value: "10.40.0.0": invalid pool CIDR: invalid CIDR notation: invalid CIDR address: 10.40.0.0`, nil},
		{"IPv6", policy.Create, nil, npPool("fd00::/64", nil), nil, policy.RuleNetworkPoolSpec,
			`spec: Invalid value: "fd00::/64": invalid pool CIDR: invalid CIDR notation: only IPv4 supported`, nil},
		{"reserved outside, range outside and out of order", policy.Create, nil, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.Reserved = []v1alpha1.ReservedRange{{CIDR: "10.41.0.0/24"}, {CIDR: "10.40.1.0/23"}}
			s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.40.2.0", End: "10.40.2.255"}, {Start: "10.40.2.100", End: "10.41.0.1"}, {Start: "x", End: "10.40.0.1"}}
		}), nil, policy.RuleNetworkPoolSpec,
			`[spec: Invalid value: "10.40.0.0/16": reserved CIDR "10.41.0.0/24" is not within pool CIDR "10.40.0.0/16", ` +
				`spec: Invalid value: "10.40.0.0/16": ranges[1] (10.40.2.100-10.41.0.1) falls outside pool CIDR 10.40.0.0/16, ` +
				`spec: Invalid value: "10.40.0.0/16": ranges must be sorted by start IP and non-overlapping; ranges[1].start (10.40.2.100) must be greater than ranges[0].end (10.40.2.255), ` +
				`spec: Invalid value: "10.40.0.0/16": ranges[2].start "x" is not a valid IPv4 address, ` +
				`spec: Invalid value: "10.40.0.0/16": reserved CIDR 10.41.0.0/24 straddles ranges[1] boundary (10.40.2.100-10.41.0.1)]`, nil},
		{"start after end", policy.Create, nil, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.40.3.0", End: "10.40.2.0"}}
		}), nil, policy.RuleNetworkPoolSpec, `spec: Invalid value: "10.40.0.0/16": ranges[0] start 10.40.3.0 is after end 10.40.2.0`, nil},
		{"start/end only: deprecation warning", policy.Create, nil, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation = &v1alpha1.TenantAllocationConfig{Start: "10.40.1.0", End: "10.40.1.255"}
		}), nil, "", "", []string{"Start/End fields are deprecated; migrate to Ranges. Equivalent configuration:\n  tenantAllocation:\n    ranges:\n    - start: 10.40.1.0\n      end: 10.40.1.255"}},
		{"start/end and ranges: ignored", policy.Create, nil, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation.Start, s.TenantAllocation.End = "10.40.1.0", "10.40.1.255"
		}), nil, "", "", []string{"Start/End are ignored when Ranges is present; remove them"}},
		{"update keeps no warnings when it passes", policy.Update, base, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation.Start, s.TenantAllocation.End = "10.40.1.0", "10.40.1.255"
		}), nil, "", "", nil},
		{"update refused by the spec keeps its warnings", policy.Update, base, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation = &v1alpha1.TenantAllocationConfig{Start: "10.40.1.0", End: "10.50.0.0"}
		}), nil, policy.RuleNetworkPoolSpec, `spec: Invalid value: "10.40.0.0/16": ranges[0] (10.40.1.0-10.50.0.0) falls outside pool CIDR 10.40.0.0/16`,
			[]string{"Start/End fields are deprecated; migrate to Ranges. Equivalent configuration:\n  tenantAllocation:\n    ranges:\n    - start: 10.40.1.0\n      end: 10.50.0.0"}},
		{"CIDR may grow", policy.Update, base, npPool("10.40.0.0/15", nil), allocated, "", "", nil},
		{"CIDR may not shrink", policy.Update, base, npPool("10.40.0.0/17", nil), allocated, policy.RuleNetworkPoolCIDR,
			`spec.cidr: Forbidden: new CIDR "10.40.0.0/17" does not contain the previous CIDR "10.40.0.0/16"; shrinking a pool may orphan existing allocations`, nil},
		{"old CIDR unreadable", policy.Update, npPool("bad", nil), base, nil, policy.RuleNetworkPoolCIDR,
			`spec.cidr: Invalid value: "10.40.0.0/16": failed to validate CIDR containment: invalid inner CIDR "bad": invalid CIDR notation: invalid CIDR address: bad`, nil},
		{"narrowing past an Allocated address", policy.Update, base, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.40.6.0", End: "10.40.9.255"}}
		}), allocated, policy.RuleNetworkPoolNarrow,
			`spec.tenantAllocation: Forbidden: cannot narrow tenant allocation ranges: IPAllocation "web-nodes" has address 10.40.5.1 outside the proposed ranges. Migrate or delete affected allocations first`, nil},
		{"narrowing around Allocated addresses", policy.Update, base, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.40.5.0", End: "10.40.5.255"}}
		}), allocated, "", "", nil},
		{"an allocation known by its start and end", policy.Update, base, npPool("10.40.0.0/16", func(s *v1alpha1.NetworkPoolSpec) {
			s.TenantAllocation.Ranges = []v1alpha1.IPRange{{Start: "10.40.7.0", End: "10.40.9.255"}}
		}), []v1alpha1.IPAllocation{{ObjectMeta: metav1.ObjectMeta{Name: "lb", Namespace: "payments"},
			Status: v1alpha1.IPAllocationStatus{Phase: v1alpha1.IPAllocationPhaseAllocated, StartAddress: "10.40.6.250", EndAddress: "10.40.7.5"}}},
			policy.RuleNetworkPoolNarrow,
			`spec.tenantAllocation: Forbidden: cannot narrow tenant allocation ranges: IPAllocation "lb" has addresses 10.40.6.250-10.40.7.5 outside the proposed ranges. Migrate or delete affected allocations first`, nil},
		{"delete while Allocated", policy.Delete, nil, base, append([]v1alpha1.IPAllocation{npAlloc("zeta", "z", v1alpha1.IPAllocationPhaseAllocated)}, allocated...), policy.RuleNetworkPoolAllocate,
			`metadata.name: Forbidden: cannot delete NetworkPool "lab": IPAllocation "web-nodes" in namespace "payments" is still in phase Allocated`, nil},
		{"delete once released", policy.Delete, nil, base, allocated[1:], "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := policy.AdmitNetworkPool(tt.op, tt.old, tt.new, tt.allocs)
			got := ""
			if d.Err != nil {
				got = d.Err.Error()
			}
			if got != tt.err || d.Rule != tt.rule {
				t.Errorf("got %s %q\nwant %s %q", d.Rule, got, tt.rule, tt.err)
			}
			if len(d.Warnings) != len(tt.warnings) || (len(tt.warnings) > 0 && d.Warnings[0] != tt.warnings[0]) {
				t.Errorf("warnings %q, want %q", d.Warnings, tt.warnings)
			}
		})
	}
}
