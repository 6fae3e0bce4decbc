package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// FieldManager owns the fields the install applies.
const FieldManager = "butleradm-webhook-install"

// resources maps the bundle's kinds to their resources and scope, so applying needs no
// discovery round trip.
var resources = map[schema.GroupVersionKind]struct {
	resource   string
	namespaced bool
}{
	{Version: "v1", Kind: "Namespace"}:                                                             {"namespaces", false},
	{Version: "v1", Kind: "ServiceAccount"}:                                                        {"serviceaccounts", true},
	{Version: "v1", Kind: "Secret"}:                                                                {"secrets", true},
	{Version: "v1", Kind: "Service"}:                                                               {"services", true},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}:                       {"clusterroles", false},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}:                {"clusterrolebindings", false},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}:                              {"roles", true},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}:                       {"rolebindings", true},
	{Group: "batch", Version: "v1", Kind: "CronJob"}:                                               {"cronjobs", true},
	{Group: "apps", Version: "v1", Kind: "Deployment"}:                                             {"deployments", true},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}:                                  {"poddisruptionbudgets", true},
	{Group: "cert-manager.io", Version: "v1", Kind: "Issuer"}:                                      {"issuers", true},
	{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}:                                 {"certificates", true},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}: {"validatingwebhookconfigurations", false},
}

// Applier applies a bundle with server-side apply and waits for its Deployment.
type Applier struct {
	client dynamic.Interface
}

// NewApplier returns an Applier for cfg.
func NewApplier(cfg *rest.Config) (*Applier, error) {
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Applier{client: c}, nil
}

// ToUnstructured is obj as the API server is sent it.
func ToUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return u, nil
}

// Apply sends each object, in order, as a server-side apply owned by FieldManager
// (forcing conflicts: the install owns these objects), and returns the server's objects.
// dryRun sends them with dryRun=All: the server validates and admits them and stores
// nothing.
func (a *Applier) Apply(ctx context.Context, objs []runtime.Object, dryRun bool) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, obj := range objs {
		u, err := ToUnstructured(obj)
		if err != nil {
			return out, err
		}
		gvk := u.GroupVersionKind()
		r, ok := resources[gvk]
		if !ok {
			return out, fmt.Errorf("internal error: no resource for %s", gvk)
		}
		body, err := json.Marshal(u.Object)
		if err != nil {
			return out, err
		}
		ri := a.client.Resource(gvk.GroupVersion().WithResource(r.resource))
		var c dynamic.ResourceInterface = ri
		if r.namespaced {
			c = ri.Namespace(u.GetNamespace())
		}
		opts := metav1.PatchOptions{FieldManager: FieldManager, Force: ptr(true)}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		got, err := c.Patch(ctx, u.GetName(), types.ApplyPatchType, body, opts)
		if err != nil {
			return out, fmt.Errorf("applying %s %s: %w", gvk.Kind, u.GetName(), err)
		}
		out = append(out, got)
	}
	return out, nil
}

// WaitReady polls the Deployment until its current generation has every replica updated
// and ready, or ctx ends (the caller's deadline).
func (a *Applier) WaitReady(ctx context.Context, namespace, name string, every time.Duration) error {
	gvr := appsv1.SchemeGroupVersion.WithResource("deployments")
	var last string
	for {
		u, err := a.client.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			var d appsv1.Deployment
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &d); err != nil {
				return err
			}
			want := int32(1)
			if d.Spec.Replicas != nil {
				want = *d.Spec.Replicas
			}
			s := d.Status
			if s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.ReadyReplicas == want && s.Replicas == want {
				return nil
			}
			last = fmt.Sprintf("%d of %d replicas ready, %d updated", s.ReadyReplicas, want, s.UpdatedReplicas)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("deployment %s/%s not ready: %s: %w", namespace, name, last, ctx.Err())
		case <-time.After(every):
		}
	}
}
