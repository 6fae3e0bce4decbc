package lookup

import (
	"context"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// AdmitUpdate runs the server's update rules on updated, the cluster cur as a command
// would change it (cluster scale, cluster upgrade): its siblings, the
// ClusterCreationPolicies (a warning on errOut when they cannot be read: the server still
// applies them) and its ProviderConfig are read from s.
func AdmitUpdate(ctx context.Context, s store.Reader, team *v1alpha1.Team, cur, updated *v1alpha1.TenantCluster, actor Actor, errOut io.Writer) (policy.Decision, error) {
	siblings, err := s.ListClusters(ctx, cur.Namespace)
	if err != nil {
		return policy.Decision{}, err
	}
	// The server applies ClusterCreationPolicies on update too, to values the cluster had.
	policies, err := s.ListClusterCreationPolicies(ctx)
	if apierrors.IsForbidden(err) {
		fmt.Fprintf(errOut, "Warning: cannot read ClusterCreationPolicies, so they are not checked here (the server applies them): %v\n", err)
		policies, err = nil, nil
	}
	if err != nil {
		return policy.Decision{}, err
	}
	var pc *v1alpha1.ProviderConfig
	if ref := cur.Spec.ProviderConfigRef; ref != nil {
		ns := ref.Namespace
		if ns == "" {
			ns = v1alpha1.DefaultProviderNamespace
		}
		pc, err = s.GetProviderConfig(ctx, ns, ref.Name)
		if apierrors.IsNotFound(err) {
			pc, err = nil, nil // the preflight says so, in the server's words
		}
		if err != nil {
			return policy.Decision{}, err
		}
	}
	return policy.AdmitCluster(policy.ClusterRequest{
		Operation:      policy.Update,
		Cluster:        updated,
		Old:            cur,
		Team:           team,
		Siblings:       siblings,
		ProviderConfig: pc,
		Username:       actor.Identity.Username,
		Policies:       policies,
	}), nil
}
