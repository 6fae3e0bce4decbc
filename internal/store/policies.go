package store

import (
	"context"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// CreationPolicies is a store that can write ClusterCreationPolicies (butleradm policy).
// Kept out of Store, like Migrator and Providers: both stores implement it and the commands
// that write policies assert it.
type CreationPolicies interface {
	// CreateClusterCreationPolicy creates p (offline: DIR/policies/NAME.yaml, or a further
	// document of the --manifests file); AlreadyExists when one of that name exists.
	CreateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (Result, error)
	// UpdateClusterCreationPolicy replaces p's spec. Live it carries p's resourceVersion,
	// so a policy changed since it was read is refused with a Conflict; offline its
	// document is rewritten in place.
	UpdateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (Result, error)
	// DeleteClusterCreationPolicy deletes the policy of that name; NotFound when none.
	DeleteClusterCreationPolicy(ctx context.Context, name string) (Result, error)
}
