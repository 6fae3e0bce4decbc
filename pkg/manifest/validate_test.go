package manifest

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

const clusterHeader = manifesttest.ClusterHeader

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"valid team", teamHeader + "spec:\n  resourceLimits: {maxClusters: 0}\n  environments: [{name: dev}, {name: prod_1.a}]\n", nil},
		{"negative counts", teamHeader + "spec:\n  resourceLimits:\n    maxClusters: -1\n    maxTotalNodes: -2\n",
			[]string{
				`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxClusters: Invalid value: -1: should be greater than or equal to 0`,
				`f.yaml:8: Team "payments" (document 1): spec.resourceLimits.maxTotalNodes: Invalid value: -2: should be greater than or equal to 0`,
			}},
		{"env name pattern", teamHeader + "spec:\n  environments:\n  - name: dev\n  - name: -bad\n",
			[]string{`f.yaml:8: Team "payments" (document 1): spec.environments[1].name: Invalid value: "-bad": should match '^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$'`}},
		{"env name length", teamHeader + "spec:\n  environments:\n  - name: " + strings.Repeat("a", 64) + "\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.environments[0].name: Too long: may not be more than 63 bytes`}},
		{"duplicate env names", teamHeader + "spec:\n  environments:\n  - name: dev\n  - name: prod\n  - name: dev\n",
			[]string{`f.yaml:9: Team "payments" (document 1): spec.environments[2].name: Duplicate value: "dev"`}},
		{"env limits", teamHeader + "spec:\n  environments:\n  - name: dev\n    limits: {maxClusters: -1}\n",
			[]string{`f.yaml:8: Team "payments" (document 1): spec.environments[0].limits.maxClusters: Invalid value: -1: should be greater than or equal to 0`}},
		{"role enum", teamHeader + "spec:\n  access:\n    users:\n    - name: a@example.com\n      role: owner\n",
			[]string{`f.yaml:9: Team "payments" (document 1): spec.access.users[0].role: Unsupported value: "owner": supported values: "admin", "operator", "viewer"`}},
		{"workerDiskGi minimum", teamHeader + "spec:\n  clusterDefaults:\n    workerDiskGi: 5\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.clusterDefaults.workerDiskGi: Invalid value: 5: should be greater than or equal to 10`}},
		{"valid cluster", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1}\n", nil},
		{"kubernetesVersion pattern", clusterHeader + "spec:\n  kubernetesVersion: \"1.31.0\"\n  workers: {replicas: 1}\n",
			[]string{`f.yaml:7: TenantCluster "payments/c" (document 1): spec.kubernetesVersion: Invalid value: "1.31.0": should match '^v\d+\.\d+\.\d+$'`}},
		{"required fields", clusterHeader + "spec:\n  teamRef: {name: payments}\n",
			[]string{
				`f.yaml:6: TenantCluster "payments/c" (document 1): spec.kubernetesVersion: Required value`,
				`f.yaml:6: TenantCluster "payments/c" (document 1): spec.workers: Required value`,
			}},
		{"replicas", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers:\n    replicas: 0\n",
			[]string{`f.yaml:9: TenantCluster "payments/c" (document 1): spec.workers.replicas: Invalid value: 0: should be greater than or equal to 1`}},
		{"replicas missing", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers:\n    machineTemplate: {cpu: 2}\n",
			[]string{`f.yaml:8: TenantCluster "payments/c" (document 1): spec.workers.replicas: Required value`}},
		{"addons", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1}\n  addons:\n    cni: {provider: calico, version: \"1\"}\n    storage: {provider: longhorn}\n    certManager: {version: v1, values: 3}\n",
			[]string{
				`f.yaml:10: TenantCluster "payments/c" (document 1): spec.addons.cni.provider: Unsupported value: "calico": supported values: "cilium"`,
				`f.yaml:11: TenantCluster "payments/c" (document 1): spec.addons.storage.version: Required value`,
				`f.yaml:12: TenantCluster "payments/c" (document 1): spec.addons.certManager.values: Invalid value: 3: must be of type object`,
			}},
		{"quantity pattern", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1, machineTemplate: {memory: 16Gi}}\n", nil},
		{"user", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: bob\nspec:\n  email: not-an-email\n  platformRole: root\n",
			[]string{
				`f.yaml:6: User "bob" (document 1): spec.email: Invalid value: "not-an-email": must be an email address`,
				`f.yaml:7: User "bob" (document 1): spec.platformRole: Unsupported value: "root": supported values: "admin", "viewer", ""`,
			}},
		{"identity provider", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: IdentityProvider\nmetadata: {name: g}\nspec:\n  type: oidc\n  platformRoleGroups:\n  - {name: admins, role: operator}\n",
			[]string{`f.yaml:7: IdentityProvider "g" (document 1): spec.platformRoleGroups[0].role: Unsupported value: "operator": supported values: "admin", "viewer"`}},
		{"metadata", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  labels:\n    bad key!: x\n",
			[]string{
				`f.yaml:3: Team (document 1): metadata.name: Required value: name or generateName is required`,
				`f.yaml:4: Team (document 1): metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			}},
		{"bad name", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: Payments\n",
			[]string{`f.yaml:4: Team "Payments" (document 1): metadata.name: Invalid value: "Payments": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"unknown kinds are not checked", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: UPPER}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode("f.yaml", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(objs[0])
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); got != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Error("not a *DecodeError")
			}
		})
	}
}

func TestValidateInMemory(t *testing.T) {
	c := &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "dev-1", Namespace: "payments"},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "1.30.4",
			Workers:           v1alpha1.WorkersSpec{Replicas: 0},
		},
	}
	err := Validate(Object{Obj: c})
	want := `TenantCluster "payments/dev-1": spec.kubernetesVersion: Invalid value: "1.30.4": should match '^v\d+\.\d+\.\d+$'` + "\n" +
		`TenantCluster "payments/dev-1": spec.workers.replicas: Invalid value: 0: should be greater than or equal to 1`
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
	c.Spec.KubernetesVersion, c.Spec.Workers.Replicas = "v1.30.4", 2
	if err := Validate(Object{Obj: c}); err != nil {
		t.Error(err)
	}
}
