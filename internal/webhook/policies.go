package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// ClusterCreationPolicies in the webhook (docs/cluster-creation-policies.md): they are
// applied to TenantClusters, and their own creates and updates are validated.

func (r *apiReader) ListClusterCreationPolicies(ctx context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	items, err := listAll(ctx, r, "", "clustercreationpolicies", func(l *v1alpha1.ClusterCreationPolicyList) []v1alpha1.ClusterCreationPolicy { return l.Items })
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil, nil // the CRD is not installed: no policies, as on the server
	}
	return items, err
}

// clusterPolicies reads the policies into creq when they can matter (the cluster sets an
// option value its ProviderConfig's provider has); failed is true with the verdict when
// the read fails.
func (h *Handler) clusterPolicies(ctx context.Context, creq *policy.ClusterRequest) (verdict, bool) {
	if !creq.NeedsPolicies() {
		return verdict{}, false
	}
	ps, err := h.reader.ListClusterCreationPolicies(ctx)
	if err != nil {
		return errored(http.StatusInternalServerError, fmt.Errorf("list ClusterCreationPolicies: %w", err)), true
	}
	creq.Policies = ps
	return verdict{}, false
}

// creationPolicy is the ClusterCreationPolicy webhook with policy.AdmitPolicy deciding:
// the scope's Team read fresh, and every stored policy for the same-tier conflicts. An
// update that leaves the spec alone is allowed (see unchangedCluster); delete is not checked.
func (h *Handler) creationPolicy(ctx context.Context, req *admissionv1.AdmissionRequest) verdict {
	op, checked := operation(req)
	if !checked {
		return allow()
	}
	p := &v1alpha1.ClusterCreationPolicy{}
	if err := h.decodeInto(req.Object, p, "object"); err != nil {
		return errored(http.StatusBadRequest, err)
	}
	if op == policy.Update {
		old := &v1alpha1.ClusterCreationPolicy{}
		if err := h.decodeInto(req.OldObject, old, "oldObject"); err != nil {
			return errored(http.StatusBadRequest, err)
		}
		if equality.Semantic.DeepEqual(old.Spec, p.Spec) {
			return allow()
		}
	}
	var readErr error
	teams := func(name string) *v1alpha1.Team {
		t, err := h.reader.GetTeam(ctx, name)
		if err != nil {
			if !apierrors.IsNotFound(err) && readErr == nil {
				readErr = fmt.Errorf("fetch team %q: %w", name, err)
			}
			return nil
		}
		return t
	}
	others, err := h.reader.ListClusterCreationPolicies(ctx)
	if err != nil {
		return errored(http.StatusInternalServerError, fmt.Errorf("list ClusterCreationPolicies: %w", err))
	}
	d := policy.AdmitPolicy(policy.PolicyRequest{Operation: op, Policy: p, Team: teams, Others: others})
	if readErr != nil {
		return errored(http.StatusInternalServerError, readErr)
	}
	return decisionVerdict(d)
}
