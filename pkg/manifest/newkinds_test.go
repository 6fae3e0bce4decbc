package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// The objects today's Butler serves decode strictly into their types: what the API has
// now is read, a misspelt field is refused.
func TestDecodeTodaysObjects(t *testing.T) {
	in := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata: {name: kind, namespace: butler-system}
spec:
  provider: local
  local: {kindNodeImage: "kindest/node:v1.31.0"}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: User
metadata: {name: bob}
spec: {email: bob@example.com}
status:
  lastSeenGroups: [devs]
  teamsResolvedAt: "2026-06-01T10:00:00Z"
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantAddon
metadata: {name: podinfo, namespace: payments}
spec:
  clusterRef: {name: web}
  version: 6.7.0
  helm: {repository: https://stefanprodan.github.io/podinfo, chart: podinfo, releaseName: pi, namespace: apps, createNamespace: false}
  values: {replicaCount: 2, ui: {color: "#34577c"}}
  dependsOn: [{name: cert-manager}]
status:
  phase: Installed
  installedVersion: 6.7.0
  helmRelease: {name: pi, namespace: apps, revision: 3, status: deployed, version: 6.7.0}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: NetworkPool
metadata: {name: lab, namespace: butler-system}
spec:
  cidr: 10.40.0.0/16
  reserved: [{cidr: 10.40.0.0/24, description: management}]
  tenantAllocation:
    ranges: [{start: 10.40.1.0, end: 10.40.9.255}]
    defaults: {nodesPerTenant: 5, lbPoolPerTenant: 8}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: IPAllocation
metadata: {name: web-nodes, namespace: butler-system, labels: {butler.butlerlabs.dev/network-pool: lab}}
spec:
  poolRef: {name: lab}
  tenantClusterRef: {name: web, namespace: payments}
  type: nodes
  count: 5
status:
  phase: Allocated
  startAddress: 10.40.1.0
  endAddress: 10.40.1.4
`
	objs, err := Decode("today.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 5 {
		t.Fatalf("%d objects", len(objs))
	}
	pc := objs[0].Obj.(*v1alpha1.ProviderConfig)
	if pc.Spec.Local == nil || pc.Spec.Local.KindNodeImage != "kindest/node:v1.31.0" || pc.Spec.CredentialsRef.Name != "" {
		t.Errorf("ProviderConfig %+v", pc.Spec)
	}
	if b, _ := json.Marshal(pc.Spec); strings.Contains(string(b), "credentialsRef") {
		t.Errorf("a local provider writes a credentialsRef: %s", b)
	}
	u := objs[1].Obj.(*v1alpha1.User)
	if len(u.Status.LastSeenGroups) != 1 || u.Status.TeamsResolvedAt == nil {
		t.Errorf("User status %+v", u.Status)
	}
	ta := objs[2].Obj.(*v1alpha1.TenantAddon)
	if ta.Spec.Helm == nil || ta.Spec.Helm.Chart != "podinfo" || *ta.Spec.Helm.CreateNamespace || ta.Spec.Values == nil ||
		len(ta.Spec.DependsOn) != 1 || ta.Status.HelmRelease.Revision != 3 {
		t.Errorf("TenantAddon %+v %+v", ta.Spec, ta.Status)
	}
	np := objs[3].Obj.(*v1alpha1.NetworkPool)
	if r := np.Spec.TenantAllocation.EffectiveRanges(); len(r) != 1 || r[0].End != "10.40.9.255" {
		t.Errorf("NetworkPool ranges %+v", r)
	}
	ipa := objs[4].Obj.(*v1alpha1.IPAllocation)
	if ipa.Status.Phase != v1alpha1.IPAllocationPhaseAllocated || *ipa.Spec.Count != 5 {
		t.Errorf("IPAllocation %+v", ipa)
	}
	for _, o := range objs {
		if err := Validate(o); err != nil {
			t.Errorf("%s: %v", o.Kind, err)
		}
	}
}

func TestDecodeTodaysObjectsStrictly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"kind: NetworkPool\nmetadata: {name: p, namespace: n}\nspec: {cidr: 10.0.0.0/8, tenantAlocation: {}}\n", "spec.tenantAlocation: unknown field"},
		{"kind: IPAllocation\nmetadata: {name: a, namespace: n}\nspec: {poolRef: {name: p}, tenantClusterRef: {name: c, namespace: n}, type: nodes, cont: 1}\n", "spec.cont: unknown field"},
		{"kind: TenantAddon\nmetadata: {name: a, namespace: n}\nspec: {clusterRef: {name: c}, version: '1', helm: {repo: x, chart: y}}\n", "spec.helm.repo: unknown field"},
	} {
		_, err := Decode("bad.yaml", []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\n"+tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// The CRD's rules, offline: the enum of IPAllocation types, the pool's CIDR pattern, the
// CEL rule on credentialsRef.
func TestValidateTodaysObjects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"kind: IPAllocation\nmetadata: {name: a, namespace: n}\nspec: {poolRef: {name: p}, tenantClusterRef: {name: c, namespace: n}, type: vip}\n", `spec.type: Unsupported value: "vip"`},
		{"kind: NetworkPool\nmetadata: {name: p, namespace: n}\nspec: {cidr: 10.0.0.0}\n", "spec.cidr"},
		{"kind: ProviderConfig\nmetadata: {name: p, namespace: n}\nspec: {provider: aws, aws: {region: us-east-1}}\n", `spec: Invalid value: "object": credentialsRef with a non-empty name is required for all providers except local`},
	} {
		objs, err := Decode("v.yaml", []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\n"+tc.in))
		if err == nil {
			err = Validate(objs[0])
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}
