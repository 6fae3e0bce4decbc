package live

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file holds the writes of store.Store on a live cluster: creates and the team's
// spec patch.

// CreateCluster creates the TenantCluster, then each TenantAddon. If an addon fails the
// cluster stays (it is valid without it) and the error says which addon failed.
func (s *Store) CreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (store.Result, error) {
	if err := s.create(ctx, c.Namespace, "tenantclusters", c); err != nil {
		return store.Result{}, err
	}
	for i := range addons {
		a := &addons[i]
		ns := a.Namespace
		if ns == "" {
			ns = c.Namespace
		}
		if err := s.create(ctx, ns, "tenantaddons", a); err != nil {
			return store.Result{}, fmt.Errorf("tenantcluster %s/%s was created, but its addon %s was not: %w", c.Namespace, c.Name, a.Name, err)
		}
	}
	return store.Result{Location: s.Host()}, nil
}

// CreateTeam implements store.Store.
func (s *Store) CreateTeam(ctx context.Context, t *v1alpha1.Team) (store.Result, error) {
	if err := s.create(ctx, "", "teams", t); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: s.Host()}, nil
}

// UpdateTeam sends a JSON merge patch (RFC 7386) of the spec: only the fields that differ
// between old and updated, nothing outside spec. Custom resources have no strategic merge,
// so a changed list (environments, access entries) is sent whole. old's resourceVersion
// goes with the patch as a precondition: if someone changed the team since it was read,
// the server answers 409 Conflict instead of the patch overwriting their change.
func (s *Store) UpdateTeam(ctx context.Context, old, updated *v1alpha1.Team) (store.Result, error) {
	patch, err := SpecMergePatch(old.ResourceVersion, old.Spec, updated.Spec)
	if err != nil {
		return store.Result{}, err
	}
	if patch == nil {
		return store.Result{Location: s.Host()}, nil
	}
	out := &v1alpha1.Team{}
	err = s.butler.Patch(types.MergePatchType).Resource("teams").Name(old.Name).Body(patch).Do(ctx).Into(out)
	if err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

// SpecMergePatch is the JSON merge patch from oldSpec to newSpec, under "spec", with the
// resourceVersion precondition when one is given; nil when the specs are equal.
func SpecMergePatch(resourceVersion string, oldSpec, newSpec any) ([]byte, error) {
	a, err := json.Marshal(oldSpec)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(newSpec)
	if err != nil {
		return nil, err
	}
	diff, err := jsonpatch.CreateMergePatch(a, b)
	if err != nil {
		return nil, err
	}
	if string(diff) == "{}" {
		return nil, nil
	}
	patch := map[string]any{"spec": json.RawMessage(diff)}
	if resourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	}
	return json.Marshal(patch)
}

// create sends obj; the caller's object is left as it was (the server's answer, with its
// uid and resourceVersion, is not needed by any caller).
func (s *Store) create(ctx context.Context, namespace, resource string, obj runtime.Object) error {
	out := obj.DeepCopyObject()
	return apiError(s.butler.Post().NamespaceIfScoped(namespace, namespace != "").Resource(resource).Body(obj).Do(ctx).Into(out))
}

// DeleteTeam implements store.TeamDeleter, with t's uid as precondition.
func (s *Store) DeleteTeam(ctx context.Context, t *v1alpha1.Team) (store.Result, error) {
	opts := &metav1.DeleteOptions{}
	if t.UID != "" {
		uid := t.UID
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	if err := s.butler.Delete().Resource("teams").Name(t.Name).Body(opts).Do(ctx).Error(); err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}
