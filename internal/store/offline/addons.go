package offline

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// ListAddons implements store.Addons. A document without a namespace is taken to be in
// the namespace of the cluster it names, when there is one.
func (s *Store) ListAddons(_ context.Context, namespace string) ([]v1alpha1.TenantAddon, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []v1alpha1.TenantAddon
	for _, o := range s.set.Objects {
		a, ok := o.Obj.(*v1alpha1.TenantAddon)
		if !ok {
			continue
		}
		a = a.DeepCopy()
		if a.Namespace == "" {
			a.Namespace = s.clusterNamespace(a.Spec.ClusterRef.Name)
		}
		if namespace == "" || a.Namespace == namespace {
			out = append(out, *a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// clusterNamespace is the namespace of the one cluster named name, else "".
func (s *Store) clusterNamespace(name string) string {
	ns, n := "", 0
	var teams map[string]*v1alpha1.Team
	for i := range s.set.Clusters.Len() {
		if c := s.set.Clusters.At(i); c.Name == name {
			if teams == nil {
				teams = s.teamsByName()
			}
			ns = c.Place(teams[c.Team])
			n++
		}
	}
	if n != 1 {
		return ""
	}
	return ns
}

// CreateAddon implements store.Addons: a new document after the cluster's, in its file.
func (s *Store) CreateAddon(ctx context.Context, a *v1alpha1.TenantAddon) (store.Result, error) {
	existing, _ := s.ListAddons(ctx, a.Namespace)
	for _, e := range existing {
		if e.Name == a.Name {
			return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("tenantaddons"), a.Name)
		}
	}
	s.mu.RLock()
	var file string
	if i := s.set.Clusters.Find(a.Namespace, a.Spec.ClusterRef.Name); i >= 0 {
		file = s.set.Clusters.At(i).Source.File
	}
	s.mu.RUnlock()
	if file == "" || file == manifest.Stdin {
		var err error
		if file, err = s.target("addons", a.Name); err != nil {
			return store.Result{}, err
		}
	}
	if err := s.write([]manifest.Change{{File: file, Obj: a}}); err != nil {
		return store.Result{}, err
	}
	s.reload(file)
	return store.Result{Location: file}, nil
}

// DeleteAddon implements store.Addons: the addon's document goes from its file.
func (s *Store) DeleteAddon(_ context.Context, a *v1alpha1.TenantAddon) (store.Result, error) {
	s.mu.RLock()
	var doc *manifest.Object
	for i := range s.set.Objects {
		o := &s.set.Objects[i]
		if x, ok := o.Obj.(*v1alpha1.TenantAddon); ok && x.Name == a.Name && (x.Namespace == "" || x.Namespace == a.Namespace) {
			c := *o
			doc = &c
			break
		}
	}
	s.mu.RUnlock()
	if doc == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("tenantaddons"), a.Name)
	}
	return s.deleteDocument(doc, "tenantaddon")
}
