package webhook

import (
	"context"
	"errors"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func (r *fakeReader) ListClusterCreationPolicies(context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	if err := r.call("ListClusterCreationPolicies"); err != nil {
		return nil, err
	}
	out := make([]v1alpha1.ClusterCreationPolicy, len(r.policies))
	for i := range r.policies {
		out[i] = *r.policies[i].DeepCopy()
	}
	return out, nil
}

func ccpObj(name string, scope v1alpha1.PolicyScope, opts map[string]v1alpha1.OptionRule) *v1alpha1.ClusterCreationPolicy {
	return &v1alpha1.ClusterCreationPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindClusterCreationPolicy},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.ClusterCreationPolicySpec{Scope: scope, Options: opts},
	}
}

var teamPaymentsScope = v1alpha1.PolicyScope{Team: &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}}}

// TestTenantClusterPolicies: the TenantCluster webhook applies the policies, on create and
// on update, and lists them only when the cluster sets a value they could refuse.
func TestTenantClusterPolicies(t *testing.T) {
	r := payments(t)
	r.policies = []v1alpha1.ClusterCreationPolicy{*ccpObj("payments-images", teamPaymentsScope,
		map[string]v1alpha1.OptionRule{"image": {Mode: "allowList", Values: []string{"ubuntu-22", "ubuntu-24"}}})}
	h := newTestHandler(t, r)
	c := tc("web", "dev", "bob@example.com", 1)
	_, resp := post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", c, nil, "bob@example.com"))
	if !resp.Allowed || r.count("ListClusterCreationPolicies") != 0 {
		t.Fatalf("no override value: allowed %v, %d policy lists", resp.Allowed, r.count("ListClusterCreationPolicies"))
	}
	policy.SetOptionValue(c, "harvester", "image", "rocky-9")
	const want = `spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "payments-images" allow-lists image to [ubuntu-22 ubuntu-24]; got "rocky-9"`
	_, resp = post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", c, nil, "bob@example.com"))
	if resp.Allowed || resp.Result.Message != want {
		t.Fatalf("create: %+v", resp.Result)
	}
	// an update of a cluster that already had the value: no exemption
	old := c.DeepCopy()
	c.Spec.Workers.Replicas = 2
	_, resp = post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Update, "TenantCluster", c, old, "bob@example.com"))
	if resp.Allowed || resp.Result.Message != want {
		t.Fatalf("update: %+v", resp.Result)
	}
	// a failed list fails the review closed
	r.fail = map[string]error{"ListClusterCreationPolicies": errors.New("etcd is down")}
	_, resp = post(t, h, PathTenantCluster, reviewBody(t, admissionv1.Create, "TenantCluster", c, nil, "bob@example.com"))
	if resp.Allowed || resp.Result.Code != 500 || !strings.Contains(resp.Result.Message, "list ClusterCreationPolicies: etcd is down") {
		t.Fatalf("failed list: %+v", resp.Result)
	}
}

func TestCreationPolicyWebhook(t *testing.T) {
	r := payments(t)
	r.policies = []v1alpha1.ClusterCreationPolicy{*ccpObj("payments-images", teamPaymentsScope,
		map[string]v1alpha1.OptionRule{"image": {Mode: "allowList", Values: []string{"a"}}})}
	h := newTestHandler(t, r)
	send := func(op admissionv1.Operation, p, old runtime.Object) *admissionv1.AdmissionResponse {
		t.Helper()
		_, resp := post(t, h, PathCreationPolicy, reviewBody(t, op, v1alpha1.KindClusterCreationPolicy, p, old, "admin@example.com"))
		return resp
	}
	ok := ccpObj("prod-network", v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{
		TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}, EnvironmentName: "prod"}},
		map[string]v1alpha1.OptionRule{"network": {Mode: "pin", Values: []string{"vlan-20"}}})
	if resp := send(admissionv1.Create, ok, nil); !resp.Allowed {
		t.Fatalf("valid policy refused: %+v", resp.Result)
	}
	bad := ccpObj("new", v1alpha1.PolicyScope{TeamAndEnvironment: &v1alpha1.TeamAndEnvironmentScope{
		TeamRef: v1alpha1.LocalObjectReference{Name: "payments"}, EnvironmentName: "qa"}},
		map[string]v1alpha1.OptionRule{"image": {Mode: "pin", Values: []string{"a", "b"}}, "flavor": {Mode: "pin", Values: []string{"x"}}})
	want := `[spec.scope.teamAndEnvironment.environmentName: Not found: "qa", ` +
		`spec.options[image].values: Invalid value: ["a","b"]: mode "pin" requires exactly one value, got 2, ` +
		`spec.options[flavor]: Unsupported value: "flavor": supported values: "image", "network", "cluster", "storageContainer"]`
	if resp := send(admissionv1.Create, bad, nil); resp.Allowed || resp.Result.Message != want {
		t.Fatalf("invalid policy: %+v", resp.Result)
	}
	conflict := ccpObj("other-images", teamPaymentsScope, map[string]v1alpha1.OptionRule{"image": {Mode: "default", Default: "a"}})
	if resp := send(admissionv1.Create, conflict, nil); resp.Allowed || resp.Result.Message !=
		`spec.options: Forbidden: conflicts with ClusterCreationPolicy "payments-images" on option types [image] at the same tier` {
		t.Fatalf("conflict: %+v", resp.Result)
	}
	// an update that leaves the spec alone is allowed without reads; delete is not checked
	n := r.count("ListClusterCreationPolicies")
	relabeled := bad.DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	if resp := send(admissionv1.Update, relabeled, bad); !resp.Allowed || r.count("ListClusterCreationPolicies") != n {
		t.Fatalf("unchanged spec: %+v", resp.Result)
	}
	if resp := send(admissionv1.Delete, nil, bad); !resp.Allowed {
		t.Fatalf("delete: %+v", resp.Result)
	}
}
