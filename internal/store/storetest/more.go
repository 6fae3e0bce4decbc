package storetest

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

var (
	secretsResource = schema.GroupResource{Resource: "secrets"}
	tcpResource     = schema.GroupResource{Group: "steward.butlerlabs.dev", Resource: "tenantcontrolplanes"}
)

// ListClusterAddons implements store.Store.
func (s *Store) ListClusterAddons(_ context.Context, ns, cluster string) ([]v1alpha1.TenantAddon, error) {
	var out []v1alpha1.TenantAddon
	for _, a := range s.Addons {
		if a.Namespace == ns && a.Spec.ClusterRef.Name == cluster {
			out = append(out, a)
		}
	}
	return out, nil
}

// ListEvents implements store.Store: the Events about that object, oldest first.
func (s *Store) ListEvents(_ context.Context, ns, kind, name string) ([]corev1.Event, error) {
	var out []corev1.Event
	for _, e := range s.Events {
		if e.Namespace == ns && e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	store.SortEvents(out)
	return out, nil
}

// CreateClusterCreationPolicy implements store.Store.
func (s *Store) CreateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (store.Result, error) {
	if _, err := s.GetClusterCreationPolicy(ctx, p.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("clustercreationpolicies"), p.Name)
	}
	s.Policies = append(s.Policies, *p.DeepCopy())
	return store.Result{Location: "policies/" + p.Name + ".yaml"}, nil
}

// UpdateClusterCreationPolicy implements store.Store.
func (s *Store) UpdateClusterCreationPolicy(_ context.Context, p *v1alpha1.ClusterCreationPolicy) (store.Result, error) {
	for i := range s.Policies {
		if s.Policies[i].Name == p.Name {
			s.Policies[i] = *p.DeepCopy()
			return store.Result{Location: "policies/" + p.Name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("clustercreationpolicies"), p.Name)
}

// DeleteClusterCreationPolicy implements store.Store.
func (s *Store) DeleteClusterCreationPolicy(_ context.Context, name string) (store.Result, error) {
	for i := range s.Policies {
		if s.Policies[i].Name == name {
			s.Policies = append(s.Policies[:i], s.Policies[i+1:]...)
			s.Deleted = append(s.Deleted, "ClusterCreationPolicy "+name)
			return store.Result{Location: "policies/" + name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("clustercreationpolicies"), name)
}

// cluster is the stored cluster of c's namespace and name, or NotFound.
func (s *Store) cluster(c *v1alpha1.TenantCluster) (*v1alpha1.TenantCluster, error) {
	for i := range s.Clusters {
		if s.Clusters[i].Namespace == c.Namespace && s.Clusters[i].Name == c.Name {
			return &s.Clusters[i], nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), c.Name)
}

// MigrateCluster implements store.Store: it sets the environment label.
func (s *Store) MigrateCluster(_ context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error) {
	got, err := s.cluster(c)
	if err != nil {
		return store.MigrateResult{}, err
	}
	if got.Labels == nil {
		got.Labels = map[string]string{}
	}
	got.Labels[v1alpha1.LabelEnvironment] = env
	return store.MigrateResult{Location: "clusters/" + c.Name + ".yaml", Labeled: true, Cleaned: true}, nil
}

// CreateSecret implements store.Store.
func (s *Store) CreateSecret(_ context.Context, sec *corev1.Secret) (store.Result, error) {
	key := sec.Namespace + "/" + sec.Name
	if _, ok := s.Secrets[key]; ok {
		return store.Result{}, apierrors.NewAlreadyExists(secretsResource, sec.Name)
	}
	if s.Secrets == nil {
		s.Secrets = map[string]map[string][]byte{}
	}
	data := map[string][]byte{}
	for k, v := range sec.Data {
		data[k] = v
	}
	for k, v := range sec.StringData {
		data[k] = []byte(v)
	}
	s.Secrets[key] = data
	return store.Result{Location: "secrets/" + sec.Name + ".yaml"}, nil
}

// DeleteSecret implements store.Store.
func (s *Store) DeleteSecret(_ context.Context, ns, name string) (store.Result, error) {
	if _, ok := s.Secrets[ns+"/"+name]; !ok {
		return store.Result{}, apierrors.NewNotFound(secretsResource, name)
	}
	delete(s.Secrets, ns+"/"+name)
	s.Deleted = append(s.Deleted, "Secret "+ns+"/"+name)
	return store.Result{Location: "secrets/" + name + ".yaml"}, nil
}

// SecretKeys implements store.Store.
func (s *Store) SecretKeys(_ context.Context, ns, name string) ([]string, error) {
	data, ok := s.Secrets[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(secretsResource, name)
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

// ReplaceSecretData implements store.Store.
func (s *Store) ReplaceSecretData(_ context.Context, ns, name string, data map[string][]byte) (store.Result, error) {
	if _, ok := s.Secrets[ns+"/"+name]; !ok {
		return store.Result{}, apierrors.NewNotFound(secretsResource, name)
	}
	s.Secrets[ns+"/"+name] = data
	return store.Result{Location: "secrets/" + name + ".yaml"}, nil
}

// CreateProviderConfig implements store.Store.
func (s *Store) CreateProviderConfig(ctx context.Context, pc *v1alpha1.ProviderConfig) (store.Result, error) {
	if _, err := s.GetProviderConfig(ctx, pc.Namespace, pc.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("providerconfigs"), pc.Name)
	}
	s.ProviderConfigs = append(s.ProviderConfigs, *pc.DeepCopy())
	return store.Result{Location: "providers/" + pc.Name + ".yaml"}, nil
}

// DeleteProviderConfig implements store.Store.
func (s *Store) DeleteProviderConfig(_ context.Context, ns, name string) (store.Result, error) {
	for i, p := range s.ProviderConfigs {
		if p.Namespace == ns && p.Name == name {
			s.ProviderConfigs = append(s.ProviderConfigs[:i], s.ProviderConfigs[i+1:]...)
			s.Deleted = append(s.Deleted, "ProviderConfig "+ns+"/"+name)
			return store.Result{Location: "providers/" + name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
}

// GetControlPlane implements store.Store.
func (s *Store) GetControlPlane(_ context.Context, ns, name string) (*stewardv1alpha1.TenantControlPlane, error) {
	for i := range s.ControlPlanes {
		if s.ControlPlanes[i].Namespace == ns && s.ControlPlanes[i].Name == name {
			return s.ControlPlanes[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(tcpResource, name)
}

// ListControlPlanes implements store.Store.
func (s *Store) ListControlPlanes(_ context.Context, ns string) ([]stewardv1alpha1.TenantControlPlane, error) {
	var out []stewardv1alpha1.TenantControlPlane
	for _, t := range s.ControlPlanes {
		if ns == "" || t.Namespace == ns {
			out = append(out, *t.DeepCopy())
		}
	}
	return out, nil
}

// SetWritePermissions implements store.Store.
func (s *Store) SetWritePermissions(_ context.Context, ns, name string, p stewardv1alpha1.Permissions) (*stewardv1alpha1.TenantControlPlane, store.Result, error) {
	for i := range s.ControlPlanes {
		if s.ControlPlanes[i].Namespace == ns && s.ControlPlanes[i].Name == name {
			s.ControlPlanes[i].Spec.WritePermissions = p
			return s.ControlPlanes[i].DeepCopy(), store.Result{Location: "controlplanes/" + name + ".yaml"}, nil
		}
	}
	return nil, store.Result{}, apierrors.NewNotFound(tcpResource, name)
}

// write replaces the stored cluster with what edit makes of it, refusing (Conflict) a
// caller whose resourceVersion is not the stored one.
func (s *Store) write(c *v1alpha1.TenantCluster, edit func(*v1alpha1.TenantCluster)) (*v1alpha1.TenantCluster, store.Result, error) {
	got, err := s.cluster(c)
	if err != nil {
		return nil, store.Result{}, err
	}
	if got.ResourceVersion != c.ResourceVersion {
		s.Conflicts++
		return nil, store.Result{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name, errModified)
	}
	edit(got)
	got.ResourceVersion = bump(got.ResourceVersion)
	return got.DeepCopy(), store.Result{Location: "clusters/" + c.Name + ".yaml"}, nil
}

// ScaleCluster implements store.Store.
func (s *Store) ScaleCluster(_ context.Context, c *v1alpha1.TenantCluster, replicas int32) (*v1alpha1.TenantCluster, store.Result, error) {
	return s.write(c, func(got *v1alpha1.TenantCluster) { got.Spec.Workers.Replicas = replicas })
}

// UpgradeCluster implements store.Store.
func (s *Store) UpgradeCluster(_ context.Context, c *v1alpha1.TenantCluster, version string) (*v1alpha1.TenantCluster, store.Result, error) {
	return s.write(c, func(got *v1alpha1.TenantCluster) { got.Spec.KubernetesVersion = version })
}

// EditCluster implements store.Store.
func (s *Store) EditCluster(_ context.Context, c *v1alpha1.TenantCluster, spec v1alpha1.TenantClusterSpec) (*v1alpha1.TenantCluster, store.Result, error) {
	return s.write(c, func(got *v1alpha1.TenantCluster) { got.Spec = *spec.DeepCopy() })
}

// DeleteCluster implements store.Store.
func (s *Store) DeleteCluster(_ context.Context, c *v1alpha1.TenantCluster) (store.Result, error) {
	for i := range s.Clusters {
		if s.Clusters[i].Namespace == c.Namespace && s.Clusters[i].Name == c.Name {
			s.Clusters = append(s.Clusters[:i], s.Clusters[i+1:]...)
			s.Deleted = append(s.Deleted, "TenantCluster "+c.Namespace+"/"+c.Name)
			return store.Result{Location: "clusters/" + c.Name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), c.Name)
}

// DeleteTeam implements store.Store.
func (s *Store) DeleteTeam(_ context.Context, t *v1alpha1.Team) (store.Result, error) {
	for i := range s.Teams {
		if s.Teams[i].Name == t.Name {
			s.Teams = append(s.Teams[:i], s.Teams[i+1:]...)
			s.Deleted = append(s.Deleted, "Team "+t.Name)
			return store.Result{Location: "teams/" + t.Name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("teams"), t.Name)
}

// ListAddons implements store.Store.
func (s *Store) ListAddons(_ context.Context, ns string) ([]v1alpha1.TenantAddon, error) {
	var out []v1alpha1.TenantAddon
	for _, a := range s.Addons {
		if a.Namespace == ns {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateAddon implements store.Store.
func (s *Store) CreateAddon(_ context.Context, a *v1alpha1.TenantAddon) (store.Result, error) {
	for _, got := range s.Addons {
		if got.Namespace == a.Namespace && got.Name == a.Name {
			return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("tenantaddons"), a.Name)
		}
	}
	s.Addons = append(s.Addons, *a.DeepCopy())
	return store.Result{Location: "clusters/" + a.Spec.ClusterRef.Name + ".yaml"}, nil
}

// DeleteAddon implements store.Store.
func (s *Store) DeleteAddon(_ context.Context, a *v1alpha1.TenantAddon) (store.Result, error) {
	for i, got := range s.Addons {
		if got.Namespace == a.Namespace && got.Name == a.Name {
			s.Addons = append(s.Addons[:i], s.Addons[i+1:]...)
			s.Deleted = append(s.Deleted, "TenantAddon "+a.Namespace+"/"+a.Name)
			return store.Result{Location: "clusters/" + a.Spec.ClusterRef.Name + ".yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("tenantaddons"), a.Name)
}

// ApplyClusters implements store.Store as the offline store does: each cluster merged over
// the stored one (store.MergeApplied) or added; nothing changes on a dry run.
func (s *Store) ApplyClusters(_ context.Context, clusters []*v1alpha1.TenantCluster, o store.ApplyOptions) ([]store.Applied, error) {
	out := make([]store.Applied, len(clusters))
	for i, c := range clusters {
		at := -1
		for j := range s.Clusters {
			if s.Clusters[j].Namespace == c.Namespace && s.Clusters[j].Name == c.Name {
				at = j
			}
		}
		obj := c.DeepCopy()
		if at >= 0 {
			merged, err := store.MergeApplied(&s.Clusters[at], c)
			if err != nil {
				return nil, err
			}
			obj = merged
		}
		out[i] = store.Applied{Object: obj, Location: "clusters/" + c.Name + ".yaml"}
		switch {
		case o.DryRun:
		case at >= 0:
			s.Clusters[at] = *obj.DeepCopy()
		default:
			s.Clusters = append(s.Clusters, *obj.DeepCopy())
		}
	}
	return out, nil
}

// ApplyObjects implements store.Store as the offline store does: each object merged over
// the stored one (store.MergeAppliedObject) or added; a team also recorded in Created or
// Updated; nothing changes on a dry run.
func (s *Store) ApplyObjects(_ context.Context, objs []store.Object, o store.ApplyOptions) ([]store.AppliedObject, error) {
	out := make([]store.AppliedObject, len(objs))
	for i, obj := range objs {
		var got store.Object
		var err error
		switch a := obj.(type) {
		case *v1alpha1.Team:
			existed := hasTeam(s.Teams, a.Name)
			got, err = applyTo(&s.Teams, a, o.DryRun, func(t *v1alpha1.Team) bool { return t.Name == a.Name })
			switch {
			case err != nil || o.DryRun:
			case existed:
				s.Updated = append(s.Updated, *got.(*v1alpha1.Team).DeepCopy())
			default:
				s.Created = append(s.Created, *got.(*v1alpha1.Team).DeepCopy())
			}
		case *v1alpha1.ClusterCreationPolicy:
			got, err = applyTo(&s.Policies, a, o.DryRun, func(p *v1alpha1.ClusterCreationPolicy) bool { return p.Name == a.Name })
		case *v1alpha1.ProviderConfig:
			got, err = applyTo(&s.ProviderConfigs, a, o.DryRun, func(p *v1alpha1.ProviderConfig) bool { return p.Namespace == a.Namespace && p.Name == a.Name })
		default:
			err = fmt.Errorf("storetest: apply of a %T", obj)
		}
		if err != nil {
			return nil, err
		}
		out[i] = store.AppliedObject{Object: got, Location: "applied.yaml"}
	}
	return out, nil
}

func hasTeam(ts []v1alpha1.Team, name string) bool {
	for i := range ts {
		if ts[i].Name == name {
			return true
		}
	}
	return false
}

// applyTo merges a over the element of *list that match picks, or appends it.
func applyTo[T any, P interface {
	*T
	store.Object
	DeepCopy() *T
}](list *[]T, a P, dryRun bool, match func(P) bool) (store.Object, error) {
	for j := range *list {
		if match(P(&(*list)[j])) {
			merged, err := store.MergeAppliedObject(P(&(*list)[j]), a)
			if err != nil {
				return nil, err
			}
			if !dryRun {
				(*list)[j] = *merged.DeepCopy()
			}
			return merged, nil
		}
	}
	obj := a.DeepCopy()
	if !dryRun {
		*list = append(*list, *obj)
	}
	return P(obj), nil
}
