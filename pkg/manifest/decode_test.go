package manifest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

func TestSourceString(t *testing.T) {
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{Source{File: "path/team.yaml", Doc: 1, Line: 12}, "path/team.yaml:12 (document 2)"},
		{Source{File: "a.yaml", Doc: 0}, "a.yaml (document 1)"},
		{Source{File: "-", Doc: 2, Line: 3}, "<stdin>:3 (document 3)"},
		{Source{File: "l.yaml", Doc: 0, Line: 9, Item: 2}, "l.yaml:9 (document 1, item 2)"},
	} {
		if got := tc.src.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestDecodeErrorString(t *testing.T) {
	for _, tc := range []struct {
		err  DecodeError
		want string
	}{
		{DecodeError{File: "examples/bad.yaml", Doc: 0, Line: 14, Kind: "Team", Name: "payments", Field: "spec.resourceLimits.maxClusterz", Msg: "unknown field"},
			`examples/bad.yaml:14: Team "payments" (document 1): spec.resourceLimits.maxClusterz: unknown field`},
		{DecodeError{File: "c.yaml", Doc: 2, Line: 3, Kind: "TenantCluster", Namespace: "payments", Name: "dev-1", Field: "spec.workers.replicas", Msg: "x"},
			`c.yaml:3: TenantCluster "payments/dev-1" (document 3): spec.workers.replicas: x`},
		{DecodeError{File: "c.yaml", Doc: 1, Line: 5, Msg: "invalid YAML: oops"}, `c.yaml:5: document 2: invalid YAML: oops`},
		{DecodeError{File: "c.yaml", Doc: 0, Kind: "Team", Field: "kind", Msg: "m"}, `c.yaml: Team (document 1): kind: m`},
		{DecodeError{File: "-", Doc: 0, Item: 3, Line: 7, Kind: "Team", Name: "a", Msg: "m"}, `<stdin>:7: Team "a" (document 1, item 3): m`},
		{DecodeError{Kind: "Team", Name: "a", Field: "spec", Msg: "m"}, `Team "a": spec: m`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

const teamHeader = manifesttest.TeamHeader

func TestDecodeValid(t *testing.T) {
	in := `# leading comment, not a document
---
` + teamHeader + `spec:
  clusterDefaults:
    workerCPU: "4" # the Team document quotes it
  environments:
    - name: dev
      clusterDefaults:
        workerCPU: "2"
---
---
# only a comment
---
{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "payments"}, "data": {"k": "dg=="}, "n": 1.5}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: dev-1
  namespace: payments
spec:
  kubernetesVersion: v1.31.0
  workers:
    replicas: 2
    machineTemplate: {cpu: 4, memory: 16Gi, diskSize: 100}
  addons:
    cni: {version: "1.16", values: {ipam: {mode: kubernetes}}}
`
	objs, err := Decode("f.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("got %d objects", len(objs))
	}
	team, ok := objs[0].Obj.(*v1alpha1.Team)
	if !ok || objs[0].Source != (Source{File: "f.yaml", Doc: 0, Line: 3}) || objs[0].Name != "payments" {
		t.Fatalf("team: %+v", objs[0])
	}
	if *team.Spec.ClusterDefaults.WorkerCPU != 4 || *team.Spec.Environments[0].ClusterDefaults.WorkerCPU != 2 {
		t.Errorf("quoted workerCPU not read as integers")
	}
	sec, ok := objs[1].Obj.(*unstructured.Unstructured)
	if !ok || objs[1].Source.Doc != 3 || objs[1].Namespace != "payments" || sec.Object["n"] != 1.5 {
		t.Errorf("secret: %+v", objs[1])
	}
	tc, ok := objs[2].Obj.(*v1alpha1.TenantCluster)
	if !ok || objs[2].Source.Doc != 4 || objs[2].Source.Line != 20 {
		t.Fatalf("cluster: %+v", objs[2])
	}
	if tc.Spec.Workers.MachineTemplate.DiskSize.String() != "100" || string(tc.Spec.Addons.CNI.Values.Raw) != `{"ipam":{"mode":"kubernetes"}}` {
		t.Errorf("cluster decoded wrongly: %+v", tc.Spec)
	}
	if l := objs[2].Line("spec.workers.replicas"); l != 28 {
		t.Errorf("line of spec.workers.replicas = %d", l)
	}
	if l := objs[2].Line("spec.workers.nothing"); l != 27 {
		t.Errorf("line of a missing field should fall back to its parent, got %d", l)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string // every error, in order
	}{
		{"unknown field", teamHeader + "spec:\n  resourceLimits:\n    maxClusterz: 3\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxClusterz: unknown field (did you mean "maxClusters"?)`}},
		{"unknown top-level field", teamHeader + "specs: {}\n",
			[]string{`f.yaml:5: Team "payments" (document 1): specs: unknown field (did you mean "spec"?)`}},
		{"unknown metadata field", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: payments\n  label: {a: b}\n",
			[]string{`f.yaml:5: Team "payments" (document 1): metadata.label: unknown field (did you mean "labels"?)`}},
		{"unknown field in list item", teamHeader + "spec:\n  environments:\n  - name: dev\n  - name: prod\n    limitz: {}\n",
			[]string{`f.yaml:9: Team "payments" (document 1): spec.environments[1].limitz: unknown field (did you mean "limits"?)`}},
		{"unknown status field", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: bob\nspec:\n  email: bob@example.com\nstatus:\n  loginCount: 3\n  lastSeen: yesterday\n",
			[]string{`f.yaml:9: User "bob" (document 1): status.lastSeen: unknown field`}},
		{"string for integer", teamHeader + "spec:\n  resourceLimits:\n    maxClusters: \"abc\"\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxClusters: expected an integer, got the string "abc"`}},
		{"quoted integer elsewhere", teamHeader + "spec:\n  clusterDefaults:\n    workerCount: \"2\"\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.clusterDefaults.workerCount: expected an integer, got the string "2"`}},
		{"quoted non-integer workerCPU", teamHeader + "spec:\n  clusterDefaults:\n    workerCPU: \"4 cores\"\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.clusterDefaults.workerCPU: expected an integer, got the string "4 cores"`}},
		{"float for integer", teamHeader + "spec:\n  resourceLimits:\n    maxClusters: 2.5\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxClusters: expected an integer, got the number 2.5`}},
		{"integer out of range", teamHeader + "spec:\n  resourceLimits:\n    maxClusters: 9999999999\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxClusters: integer 9999999999 out of range for int32`}},
		{"number for string", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: TenantCluster\nmetadata:\n  name: c\n  namespace: t\nspec:\n  kubernetesVersion: 1.30\n  workers: {replicas: 1}\n",
			[]string{`f.yaml:7: TenantCluster "t/c" (document 1): spec.kubernetesVersion: expected a string, got the number 1.30 (quote it to keep it text)`}},
		{"mapping for string", teamHeader + "spec:\n  displayName: {a: b}\n",
			[]string{`f.yaml:6: Team "payments" (document 1): spec.displayName: expected a string, got a mapping`}},
		{"scalar for list", teamHeader + "spec:\n  environments: dev\n",
			[]string{`f.yaml:6: Team "payments" (document 1): spec.environments: expected a list, got the string "dev"`}},
		{"scalar for struct", teamHeader + "spec: 3\n",
			[]string{`f.yaml:5: Team "payments" (document 1): spec: expected a mapping, got the integer 3`}},
		{"string for boolean", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: bob\nspec:\n  email: bob@example.com\n  disabled: yes\n",
			[]string{`f.yaml:7: User "bob" (document 1): spec.disabled: expected a boolean (true or false), got the string "yes"`}},
		{"invalid quantity", teamHeader + "spec:\n  resourceLimits:\n    maxMemory: 16GB\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxMemory: invalid quantity "16GB": expected a Kubernetes quantity such as 16Gi, 500m or 4`}},
		{"invalid time", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: bob\nspec:\n  email: bob@example.com\nstatus:\n  lastLoginTime: yesterday\n",
			[]string{`f.yaml:8: User "bob" (document 1): status.lastLoginTime: invalid time "yesterday": expected RFC 3339, e.g. 2024-05-01T12:00:00Z`}},
		{"duplicate field", teamHeader + "spec:\n  displayName: a\n  displayName: b\n",
			[]string{`f.yaml:7: Team "payments" (document 1): spec.displayName: duplicate field (first set on line 6)`}},
		{"duplicate field in other kinds", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n  a: \"2\"\n",
			[]string{`f.yaml:7: ConfigMap "x" (document 1): data.a: duplicate field (first set on line 6)`}},
		{"missing apiVersion", "kind: Team\nmetadata:\n  name: x\n",
			[]string{`f.yaml:1: Team "x" (document 1): apiVersion: missing or not a string (every object needs apiVersion and kind)`}},
		{"missing kind", "apiVersion: v1\nmetadata:\n  name: x\n",
			[]string{`f.yaml:1: document 1: kind: missing or not a string (every object needs apiVersion and kind)`}},
		{"unsupported version", "apiVersion: butler.butlerlabs.dev/v1beta1\nkind: Team\nmetadata:\n  name: x\n",
			[]string{`f.yaml:1: Team "x" (document 1): apiVersion: unsupported apiVersion "butler.butlerlabs.dev/v1beta1" for Team: the toolkit reads butler.butlerlabs.dev/v1alpha1`}},
		{"not a mapping", "---\n- a\n- b\n",
			[]string{`f.yaml:2: document 1: a manifest document must be a mapping, got a list`}},
		{"invalid YAML", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: [\n",
			[]string{`f.yaml:6: document 2: invalid YAML: did not find expected node content`}},
		{"non-string key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  [a]: b\n",
			[]string{`f.yaml:6: ConfigMap "x" (document 1): data: mapping keys must be strings`}},
		{"infinity", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nn: .inf\n",
			[]string{`f.yaml:5: ConfigMap "x" (document 1): n: .inf cannot be represented in JSON`}},
		{"list item", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: ok}\n- " + strings.ReplaceAll(teamHeader, "\n", "\n  ") + "spec: {foo: 1}\n",
			[]string{`f.yaml:11: Team "payments" (document 1, item 2): spec.foo: unknown field`}},
		{"several errors", teamHeader + "spec:\n  resourceLimits:\n    maxClusters: x\n    maxNodes: 3\n---\nkind: Team\n",
			[]string{
				`f.yaml:7: Team "payments" (document 1): spec.resourceLimits.maxClusters: expected an integer, got the string "x"`,
				`f.yaml:8: Team "payments" (document 1): spec.resourceLimits.maxNodes: unknown field`,
				`f.yaml:10: Team (document 2): apiVersion: missing or not a string (every object needs apiVersion and kind)`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("f.yaml", []byte(tc.in))
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.File != "f.yaml" {
				t.Errorf("errors.As *DecodeError failed: %#v", err)
			}
		})
	}
}

func TestDecodeErrorFields(t *testing.T) {
	_, err := Decode("bad.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"+teamHeader+"spec:\n  resourceLimits:\n    maxClusterz: 1\n"))
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("not a DecodeError: %v", err)
	}
	want := DecodeError{File: "bad.yaml", Doc: 1, Line: 11, Kind: "Team", Name: "payments", Field: "spec.resourceLimits.maxClusterz", Msg: `unknown field (did you mean "maxClusters"?)`}
	if *de != want {
		t.Errorf("got %+v\nwant %+v", *de, want)
	}
}

func TestDecodeStatusOfExportedObjects(t *testing.T) {
	in := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: User
metadata:
  name: bob
  uid: 0d5c6a2e-1111-2222-3333-444455556666
  resourceVersion: "12345"
  generation: 2
  creationTimestamp: "2026-01-02T03:04:05Z"
  managedFields:
  - manager: butler-server
    operation: Update
    apiVersion: butler.butlerlabs.dev/v1alpha1
    time: "2026-01-02T03:04:05Z"
    fieldsType: FieldsV1
    fieldsV1: {f:spec: {f:email: {}}}
spec:
  email: bob@example.com
  authType: internal
status:
  phase: Active
  inviteExpiresAt: "2026-01-09T03:04:05Z"
  inviteSentAt: 2026-01-02T03:04:05Z
  inviteTokenHash: abc
  lastLoginTime: "2026-02-01T10:00:00Z"
  loginCount: 12
  failedLoginAttempts: 0
  lockedUntil: null
  passwordChangedAt: "2026-01-03T00:00:00Z"
  passwordSecretRef: {name: bob-password, namespace: butler-system, key: hash}
  teams:
  - name: payments
    role: operator
  conditions:
  - type: Ready
    status: "True"
    reason: Active
    message: ok
    lastTransitionTime: "2026-01-02T03:04:05Z"
`
	objs, err := Decode("u.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	u := objs[0].Obj.(*v1alpha1.User)
	if u.Status.LoginCount != 12 || u.Status.Phase != v1alpha1.UserPhaseActive || u.Status.Teams[0].Role != "operator" ||
		!u.Status.LastLoginTime.Time.Equal(time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("status: %+v", u.Status)
	}
	if err := Validate(objs[0]); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestDecodeTenantControlPlaneKeepsUnknownFields(t *testing.T) {
	in := `apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata: {name: dev-1, namespace: payments}
spec:
  controlPlane: {deployment: {replicas: 2}}
  writePermissions: {blockCreation: true}
status:
  kubernetesResources: {version: {version: v1.31.0, status: WriteLimited}}
  storage: {driver: etcd}
`
	objs, err := Decode("t.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	tcp := objs[0].Obj.(*stewardv1alpha1.TenantControlPlane)
	if !tcp.Spec.WritePermissions.BlockCreate || tcp.Status.KubernetesResources.Version.Status != stewardv1alpha1.VersionWriteLimited {
		t.Errorf("tcp: %+v", tcp)
	}
	_, err = Decode("t.yaml", []byte(strings.Replace(in, "blockCreation: true", "blockCreation: maybe", 1)))
	if err == nil || !strings.Contains(err.Error(), "spec.writePermissions.blockCreation: expected a boolean") {
		t.Errorf("types are still checked: %v", err)
	}
}

func TestDecodeLists(t *testing.T) {
	in := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TeamList
items:
- metadata: {name: a}
- apiVersion: butler.butlerlabs.dev/v1alpha1
  kind: Team
  metadata: {name: b}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
- apiVersion: butler.butlerlabs.dev/v1alpha1
  kind: User
  metadata: {name: d}
  spec: {email: d@example.com}
`
	objs, err := Decode("l.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind+"/"+o.Name+"@"+o.Source.String())
	}
	want := "Team/a@l.yaml:4 (document 1, item 1) Team/b@l.yaml:5 (document 1, item 2) ConfigMap/c@l.yaml:12 (document 2, item 1) User/d@l.yaml:13 (document 2, item 2)"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if _, ok := objs[0].Obj.(*v1alpha1.Team); !ok {
		t.Errorf("items of a TeamList are Teams")
	}
}

func TestDecodeAnchorsAndMergeKeys(t *testing.T) {
	in := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata: {name: t}
spec:
  clusterDefaults: &d
    workerCount: 2
    workerCPU: 4
  environments:
  - name: dev
    clusterDefaults: *d
  - name: prod
    clusterDefaults:
      <<: *d
      workerCount: 5
`
	objs, err := Decode("a.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	team := objs[0].Obj.(*v1alpha1.Team)
	if *team.Spec.Environments[0].ClusterDefaults.WorkerCPU != 4 || *team.Spec.Environments[1].ClusterDefaults.WorkerCount != 5 ||
		*team.Spec.Environments[1].ClusterDefaults.WorkerCPU != 4 {
		t.Errorf("aliases: %+v", team.Spec.Environments)
	}
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\napiVersion: v1\nkind: X\n"
	if _, err := Decode("bomb.yaml", []byte(bomb)); err == nil || !strings.Contains(err.Error(), "document too large") {
		t.Errorf("alias bomb: %v", err)
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# just a comment\n", "---\n---\n", "---\n...\n", "~\n"} {
		objs, err := Decode("e.yaml", []byte(in))
		if err != nil || len(objs) != 0 {
			t.Errorf("%q: %v %v", in, objs, err)
		}
	}
}
