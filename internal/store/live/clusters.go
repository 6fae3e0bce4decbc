package live

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// This file implements store.ClusterWriter and store.ClusterServer on a live cluster:
// scale and delete, server-side dry run, watching one TenantCluster, and reading one value
// of a Secret (the admin kubeconfig) through client-go's core client.

// ScalePatch is the JSON merge patch (RFC 7386) that sets spec.workers.replicas and
// nothing else, with the resourceVersion the caller read as a precondition (none when
// empty).
func ScalePatch(resourceVersion string, replicas int32) ([]byte, error) {
	return specPatch(resourceVersion, map[string]any{"workers": map[string]any{"replicas": replicas}})
}

// UpgradePatch is the JSON merge patch that sets spec.kubernetesVersion and nothing else,
// with resourceVersion as a precondition (none when empty).
func UpgradePatch(resourceVersion, version string) ([]byte, error) {
	return specPatch(resourceVersion, map[string]any{"kubernetesVersion": version})
}

// specPatch is a JSON merge patch of spec's given fields, carrying resourceVersion as a
// precondition when there is one.
func specPatch(resourceVersion string, spec map[string]any) ([]byte, error) {
	patch := map[string]any{"spec": spec}
	if resourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	}
	return json.Marshal(patch)
}

// AnnotateCluster implements store.ClusterServer: one JSON merge patch of one
// annotation, carrying c's resourceVersion (409 Conflict when it changed).
func (s *Store) AnnotateCluster(ctx context.Context, c *v1alpha1.TenantCluster, key, value string) (*v1alpha1.TenantCluster, error) {
	meta := map[string]any{"annotations": map[string]any{key: value}}
	if c.ResourceVersion != "" {
		meta["resourceVersion"] = c.ResourceVersion
	}
	patch, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return nil, err
	}
	out, _, err := s.patchCluster(ctx, c, patch)
	return out, err
}

// ScaleCluster implements store.ClusterWriter with one JSON merge patch of
// spec.workers.replicas carrying c's resourceVersion: a cluster changed since c was read
// is a 409 Conflict, and the caller decides again on a fresh read.
func (s *Store) ScaleCluster(ctx context.Context, c *v1alpha1.TenantCluster, replicas int32) (*v1alpha1.TenantCluster, store.Result, error) {
	patch, err := ScalePatch(c.ResourceVersion, replicas)
	if err != nil {
		return nil, store.Result{}, err
	}
	return s.patchCluster(ctx, c, patch)
}

// UpgradeCluster implements store.ClusterUpgrader with one JSON merge patch of
// spec.kubernetesVersion carrying c's resourceVersion (409 Conflict when it changed).
func (s *Store) UpgradeCluster(ctx context.Context, c *v1alpha1.TenantCluster, version string) (*v1alpha1.TenantCluster, store.Result, error) {
	patch, err := UpgradePatch(c.ResourceVersion, version)
	if err != nil {
		return nil, store.Result{}, err
	}
	return s.patchCluster(ctx, c, patch)
}

// EditCluster implements store.ClusterUpgrader with one JSON merge patch of the spec
// fields that differ from c's, carrying c's resourceVersion (409 Conflict when it
// changed); nothing is sent when none differs.
func (s *Store) EditCluster(ctx context.Context, c *v1alpha1.TenantCluster, spec v1alpha1.TenantClusterSpec) (*v1alpha1.TenantCluster, store.Result, error) {
	patch, err := SpecMergePatch(c.ResourceVersion, c.Spec, spec)
	if err != nil {
		return nil, store.Result{}, err
	}
	if patch == nil {
		return c.DeepCopy(), store.Result{Location: s.Host()}, nil
	}
	return s.patchCluster(ctx, c, patch)
}

// patchCluster sends a JSON merge patch of cluster c and returns the cluster as written.
func (s *Store) patchCluster(ctx context.Context, c *v1alpha1.TenantCluster, patch []byte) (*v1alpha1.TenantCluster, store.Result, error) {
	out := &v1alpha1.TenantCluster{}
	err := s.butler.Patch(types.MergePatchType).Namespace(c.Namespace).Resource("tenantclusters").Name(c.Name).
		Body(patch).Do(ctx).Into(out)
	if err != nil {
		return nil, store.Result{}, apiError(err)
	}
	clean(&out.TypeMeta, &out.ObjectMeta, v1alpha1.KindTenantCluster)
	return out, store.Result{Location: s.Host()}, nil
}

// DeleteCluster implements store.ClusterWriter: a delete with c's uid as a precondition
// (when c has one), with the server's default propagation for custom resources.
func (s *Store) DeleteCluster(ctx context.Context, c *v1alpha1.TenantCluster) (store.Result, error) {
	opts := &metav1.DeleteOptions{}
	if c.UID != "" {
		uid := c.UID
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	err := s.butler.Delete().Namespace(c.Namespace).Resource("tenantclusters").Name(c.Name).
		Body(opts).Do(ctx).Error()
	if err != nil {
		return store.Result{}, apiError(err)
	}
	return store.Result{Location: s.Host()}, nil
}

// DeleteClusterAsRead implements store.ClusterServer: a delete with c's uid and
// resourceVersion as preconditions (those it has), with dryRun=All when dryRun.
func (s *Store) DeleteClusterAsRead(ctx context.Context, c *v1alpha1.TenantCluster, dryRun bool) error {
	pre := &metav1.Preconditions{}
	if c.UID != "" {
		uid := c.UID
		pre.UID = &uid
	}
	if c.ResourceVersion != "" {
		rv := c.ResourceVersion
		pre.ResourceVersion = &rv
	}
	opts := &metav1.DeleteOptions{Preconditions: pre}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return apiError(s.butler.Delete().Namespace(c.Namespace).Resource("tenantclusters").Name(c.Name).
		Body(opts).Do(ctx).Error())
}

// DryRunCreateCluster implements store.ClusterServer: each object is sent as CreateCluster
// sends it, with dryRun=All, and the server's answer is kept.
func (s *Store) DryRunCreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (*v1alpha1.TenantCluster, []v1alpha1.TenantAddon, error) {
	out := &v1alpha1.TenantCluster{}
	if err := s.dryRunCreate(ctx, c.Namespace, "tenantclusters", c, out); err != nil {
		return nil, nil, err
	}
	clean(&out.TypeMeta, &out.ObjectMeta, v1alpha1.KindTenantCluster)
	var outAddons []v1alpha1.TenantAddon
	for i := range addons {
		a := &addons[i]
		ns := a.Namespace
		if ns == "" {
			ns = c.Namespace
		}
		got := &v1alpha1.TenantAddon{}
		if err := s.dryRunCreate(ctx, ns, "tenantaddons", a, got); err != nil {
			return nil, nil, fmt.Errorf("tenantaddon %s (dry run): %w", a.Name, err)
		}
		clean(&got.TypeMeta, &got.ObjectMeta, v1alpha1.KindTenantAddon)
		outAddons = append(outAddons, *got)
	}
	return out, outAddons, nil
}

func (s *Store) dryRunCreate(ctx context.Context, namespace, resource string, obj, into runtime.Object) error {
	return apiError(s.butler.Post().Namespace(namespace).Resource(resource).Param("dryRun", metav1.DryRunAll).
		Body(obj).Do(ctx).Into(into))
}

// WatchCluster implements store.ClusterServer: a watch of the tenantclusters of the
// namespace, narrowed to the one name by a field selector, with bookmarks.
func (s *Store) WatchCluster(ctx context.Context, namespace, name, resourceVersion string) (watch.Interface, error) {
	opts := metav1.ListOptions{
		FieldSelector:       "metadata.name=" + name,
		ResourceVersion:     resourceVersion,
		AllowWatchBookmarks: true,
		Watch:               true,
	}
	w, err := s.butler.Get().Namespace(namespace).Resource("tenantclusters").
		VersionedParams(&opts, s.butler.Params).Watch(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	return w, nil
}

// WatchClusters implements store.ClusterWatcher.
func (s *Store) WatchClusters(ctx context.Context, namespace, resourceVersion string) (watch.Interface, error) {
	opts := metav1.ListOptions{ResourceVersion: resourceVersion, AllowWatchBookmarks: true, Watch: true}
	req := s.butler.Get().Resource("tenantclusters").VersionedParams(&opts, s.butler.Params)
	if namespace != "" {
		req = req.Namespace(namespace)
	}
	w, err := req.Watch(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	return w, nil
}

// SecretValue implements store.ClusterServer. The Secret is read whole (the API has no
// way to read one key); one value leaves this function, to the caller only.
func (s *Store) SecretValue(ctx context.Context, namespace, name string, keys ...string) (string, []byte, error) {
	c, err := s.secrets(namespace)
	if err != nil {
		return "", nil, err
	}
	sec, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", nil, apiError(err)
	}
	for _, k := range keys {
		if v := sec.Data[k]; len(v) > 0 {
			return k, v, nil
		}
	}
	return "", nil, fmt.Errorf("Secret %s/%s has no key %s: %w", namespace, name, strings.Join(keys, " or "), store.ErrNoSecretKey)
}

var (
	_ store.ClusterWriter   = (*Store)(nil)
	_ store.ClusterServer   = (*Store)(nil)
	_ store.ClusterUpgrader = (*Store)(nil)
	_ store.ClusterWatcher  = (*Store)(nil)
)
