package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	labelsel "k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/internal/apipager"
	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Butler's fifth webhook, under its name and path (docs/rules.md §14).
const (
	NameNetworkPool = "vnetworkpool.kb.io"
	PathNetworkPool = "/validate-butler-butlerlabs-dev-v1alpha1-networkpool"
)

// IPAllocationReader is the NetworkPool webhook's one read. A Reader that lacks it fails
// the NetworkPool reviews that need it (update and delete) closed.
type IPAllocationReader interface {
	// ListIPAllocations lists the IPAllocations labelled with the pool's name, in every
	// namespace, as the server does.
	ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error)
}

func (r *apiReader) ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error) {
	var out []v1alpha1.IPAllocation
	sel := labelsel.SelectorFromSet(labelsel.Set{v1alpha1.LabelNetworkPool: pool}).String()
	err := apipager.Pages(ctx, r.butler.Interface, r.butler.Params,
		apipager.Request{PageSize: butlerclient.PageSize, Resource: "ipallocations", LabelSelector: sel},
		func(l *v1alpha1.IPAllocationList) []v1alpha1.IPAllocation { return l.Items },
		func(page []v1alpha1.IPAllocation, restart bool) error {
			if restart {
				out = nil
			}
			out = append(out, page...)
			return nil
		})
	return out, err
}

// networkPool is the NetworkPool webhook with policy.AdmitNetworkPool deciding: create and
// update check the spec (with the server's warnings), update and delete read the pool's
// IPAllocations.
func (h *Handler) networkPool(ctx context.Context, req *admissionv1.AdmissionRequest) verdict {
	var op policy.Operation
	switch req.Operation {
	case admissionv1.Create:
		op = policy.Create
	case admissionv1.Update:
		op = policy.Update
	case admissionv1.Delete:
		op = policy.Delete
	default:
		return allow()
	}
	pool, old := &v1alpha1.NetworkPool{}, (*v1alpha1.NetworkPool)(nil)
	if op == policy.Delete {
		if err := h.decodeInto(req.OldObject, pool, "oldObject"); err != nil {
			return errored(http.StatusBadRequest, err)
		}
	} else if err := h.decodeInto(req.Object, pool, "object"); err != nil {
		return errored(http.StatusBadRequest, err)
	}
	if op == policy.Update {
		old = &v1alpha1.NetworkPool{}
		if err := h.decodeInto(req.OldObject, old, "oldObject"); err != nil {
			return errored(http.StatusBadRequest, err)
		}
	}
	var allocs []v1alpha1.IPAllocation
	if op != policy.Create && needsAllocations(op, pool) {
		ar, ok := h.reader.(IPAllocationReader)
		if !ok {
			return errored(http.StatusInternalServerError, fmt.Errorf("failed to list IPAllocations for pool %q: this reader cannot", pool.Name))
		}
		var err error
		if allocs, err = ar.ListIPAllocations(ctx, pool.Name); err != nil {
			return errored(http.StatusInternalServerError, fmt.Errorf("failed to list IPAllocations for pool %q: %w", pool.Name, err))
		}
	}
	d := policy.AdmitNetworkPool(op, old, pool, allocs)
	if d.Err != nil {
		v := denied(d.Err.Error(), d.Rule)
		v.warnings = d.Warnings
		return v
	}
	v := allow()
	v.warnings = d.Warnings
	return v
}

// needsAllocations: the server lists the allocations on every delete, and on an update
// whose new spec names tenant ranges; an update it refuses before (spec, CIDR) reads none
// either, but listing then changes no answer.
func needsAllocations(op policy.Operation, pool *v1alpha1.NetworkPool) bool {
	return op == policy.Delete || len(pool.Spec.TenantAllocation.EffectiveRanges()) > 0
}

// ListIPAllocations reads fresh from the API server: NetworkPool changes are rare, and a
// narrowing or a delete must not pass on a list the cache has not caught up with.
func (r *CachedReader) ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error) {
	return r.live.ListIPAllocations(ctx, pool)
}
