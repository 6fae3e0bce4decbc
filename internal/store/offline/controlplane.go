package offline

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// This file implements store.ControlPlanes on manifests: the TenantControlPlane documents
// of the set (a GitOps tree of the management cluster may hold them; most hold none, and
// then every control plane is NotFound).

var controlPlaneResource = schema.GroupResource{Group: stewardv1alpha1.GroupVersion.Group, Resource: "tenantcontrolplanes"}

// findControlPlane is the TenantControlPlane document of that namespace and name: the one
// with that namespace, else one whose manifest leaves the namespace out (as Set.Find
// matches), nil when there is none. Only Steward's kind counts, whatever other group may
// name a kind TenantControlPlane. The caller holds s.mu.
func (s *Store) findControlPlane(namespace, name string) *manifest.Object {
	var loose *manifest.Object
	for i := range s.set.Objects {
		o := &s.set.Objects[i]
		if _, ok := o.Obj.(*stewardv1alpha1.TenantControlPlane); !ok || o.Name != name {
			continue
		}
		if o.Namespace == namespace {
			return o
		}
		if o.Namespace == "" && loose == nil {
			loose = o
		}
	}
	return loose
}

// GetControlPlane implements store.ControlPlanes.
func (s *Store) GetControlPlane(_ context.Context, namespace, name string) (*stewardv1alpha1.TenantControlPlane, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o := s.findControlPlane(namespace, name)
	if o == nil {
		return nil, apierrors.NewNotFound(controlPlaneResource, name)
	}
	tcp := o.Obj.(*stewardv1alpha1.TenantControlPlane).DeepCopy()
	if tcp.Namespace == "" {
		tcp.Namespace = namespace
	}
	return tcp, nil
}

// ListControlPlanes implements store.ControlPlanes. A document without a namespace is
// listed only for all namespaces.
func (s *Store) ListControlPlanes(_ context.Context, namespace string) ([]stewardv1alpha1.TenantControlPlane, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []stewardv1alpha1.TenantControlPlane
	for _, tcp := range values(s.set.TenantControlPlanes()) {
		if namespace == "" || tcp.Namespace == namespace {
			out = append(out, tcp)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// SetWritePermissions implements store.ControlPlanes with an in-place edit of the
// document: only the lines of spec.writePermissions change, comments, the other keys
// (those the toolkit does not type included) and the other documents stay byte for byte.
// A field that is no longer blocked is removed; an explicit false already in the file is
// kept, as it means the same.
func (s *Store) SetWritePermissions(_ context.Context, namespace, name string, p stewardv1alpha1.Permissions) (*stewardv1alpha1.TenantControlPlane, store.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.findControlPlane(namespace, name)
	if o == nil {
		return nil, store.Result{}, apierrors.NewNotFound(controlPlaneResource, name)
	}
	cur := o.Obj.(*stewardv1alpha1.TenantControlPlane)
	src := o.Source
	res := store.Result{Location: src.File}
	if cur.Spec.WritePermissions == p {
		return cur.DeepCopy(), res, nil
	}
	if src.File == manifest.Stdin {
		return nil, store.Result{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: tenantcontrolplane %q came from stdin", name)
	}
	updated := cur.DeepCopy()
	updated.Spec.WritePermissions = p
	if err := s.write([]manifest.Change{{Source: &src, Obj: updated}}); err != nil {
		return nil, store.Result{}, err
	}
	o.Obj = updated
	out := updated.DeepCopy()
	if out.Namespace == "" {
		out.Namespace = namespace
	}
	return out, res, nil
}
