package manifest

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

func ptr[T any](v T) *T { return &v }

// load reads one file and returns its set.
func load(t *testing.T, path string) *Set {
	t.Helper()
	set, err := Load([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkFile(t *testing.T, path, want string) {
	t.Helper()
	if got := readFile(t, path); got != want {
		t.Errorf("%s:\n--- got ---\n%s--- want ---\n%s", filepath.Base(path), got, want)
	}
}

const commentedFile = manifesttest.CommentedFile

func TestWriteInPlaceKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte(commentedFile), 0o640); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("payments")
	*team.Spec.ResourceLimits.MaxClusters = 25
	team.Spec.ClusterDefaults.KubernetesVersion = "v1.32.1"
	team.Spec.Access.Users[1].Role = v1alpha1.RoleViewer
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"maxClusters: 20     # twenty", "maxClusters: 25     # twenty",
		`kubernetesVersion: "v1.31.0"`, `kubernetesVersion: "v1.32.1"`,
		"role: 'operator'", "role: 'viewer'",
		// workerCPU: "4" stays as written: an edit changes only what it is asked to.
	).Replace(commentedFile)
	checkFile(t, path, want)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
	// Writing the object again changes nothing, byte for byte.
	set = load(t, path)
	team = set.Team("payments")
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, want)
}

func TestWriteStructuralEdits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte(commentedFile), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("payments")
	team.Labels["region"] = "eu"
	team.Spec.Access.Users = append(team.Spec.Access.Users, v1alpha1.TeamUser{Name: "carol@example.com", Role: v1alpha1.RoleOperator})
	team.Spec.Environments[0].Limits = nil
	team.Spec.Environments[1].Description = "Customer-facing"
	team.Spec.Environments = append(team.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "staging", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: ptr(int32(2))}})
	team.Spec.ResourceLimits.MaxClusters = nil
	q := resource.MustParse("500Gi")
	team.Spec.ResourceLimits.MaxStorage = &q
	team.Spec.DisplayName = ""
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	want := `# Payments team, managed by the platform team.
# Do not edit by hand outside of a pull request.

---
# The team itself.
kind: Team   # kind before apiVersion on purpose
apiVersion: butler.butlerlabs.dev/v1alpha1
metadata:
  name: payments
  labels: {tier: gold, region: eu}
spec:
  # people
  access:
    users:
    - name: alice@example.com   # lead
      role: admin

    # bob helps out
    - name: bob@example.com
      role: 'operator'
    - name: carol@example.com
      role: operator
  resourceLimits:
    maxMemory: 16384Mi  # 16 GiB, written in Mi on purpose
    maxStorage: 500Gi
  clusterDefaults:
    workerCPU: "4"
    kubernetesVersion: "v1.31.0"
  environments:
    - name: dev
      # prod is strict
    - name: prod
      limits:
        maxClusters: 6
      description: Customer-facing
    - name: staging
      limits:
        maxClusters: 2
  # end of spec
# end of team
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: untouched    # stays as it is
data:
  weird:    "spacing"   # kept
`
	checkFile(t, path, want)
	// The result reads back as the object that was written.
	got := load(t, path).Team("payments")
	if len(got.Spec.Environments) != 3 || got.Spec.Environments[0].Limits != nil || got.Spec.ResourceLimits.MaxClusters != nil ||
		got.Labels["region"] != "eu" || got.Spec.DisplayName != "" {
		t.Errorf("read back: %+v", got.Spec)
	}
}

func TestWriteReorderedListFallsBackToItsBlock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte(commentedFile), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("payments")
	envs := team.Spec.Environments
	team.Spec.Environments = []v1alpha1.EnvironmentSpec{envs[1], envs[0]}
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	// Only the environments block is re-rendered (the comment follows the node yaml.v3
	// attached it to); the rest stays byte for byte.
	want := strings.Replace(commentedFile, `  environments:
    - name: dev
      limits:
        maxClustersPerMember: 2
      # prod is strict
    - name: prod
      limits:
        maxClusters: 6
`, `  environments:
    - name: prod
      limits:
        maxClusters: 6
    - name: dev
      limits:
        maxClustersPerMember: 2
        # prod is strict
`, 1)
	checkFile(t, path, want)
}

func TestWriteAppend(t *testing.T) {
	dir := t.TempDir()
	newFile := filepath.Join(dir, "teams", "payments", "clusters.yaml")
	c := &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "dev-1", Namespace: "payments", Labels: map[string]string{v1alpha1.LabelEnvironment: "dev"}},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
			Workers: v1alpha1.WorkersSpec{Replicas: 2, MachineTemplate: v1alpha1.MachineTemplate{
				CPU: 4, Memory: resource.MustParse("16Gi"), DiskSize: resource.MustParse("100Gi"),
			}},
		},
	}
	addon := &v1alpha1.TenantAddon{
		ObjectMeta: metav1.ObjectMeta{Name: "dev-1-redis", Namespace: "payments"},
		Spec:       v1alpha1.TenantAddonSpec{ClusterRef: v1alpha1.LocalObjectReference{Name: "dev-1"}, Addon: "redis", Version: "7.2"},
	}
	if err := Write([]Change{{File: newFile, Obj: c}, {File: newFile, Obj: addon}}); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: dev-1
  namespace: payments
  labels:
    butler.butlerlabs.dev/environment: dev
spec:
  kubernetesVersion: v1.31.0
  teamRef:
    name: payments
  workers:
    replicas: 2
    machineTemplate:
      cpu: 4
      memory: 16Gi
      diskSize: 100Gi
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantAddon
metadata:
  name: dev-1-redis
  namespace: payments
spec:
  clusterRef:
    name: dev-1
  addon: redis
  version: "7.2"
`
	checkFile(t, newFile, want)
	if st, _ := os.Stat(newFile); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", st.Mode().Perm())
	}

	// Appending to an existing file follows its indentation and keeps it whole.
	existing := filepath.Join(dir, "users.yaml")
	orig := "# users\napiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n    name: a\nspec:\n    email: a@example.com\n    sshKeys:\n    - name: k\n      publicKey: ssh-ed25519 AAAA"
	if err := os.WriteFile(existing, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	u := &v1alpha1.User{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.UserSpec{
		Email: "b@example.com", SSHKeys: []v1alpha1.SSHKey{{Name: "k", PublicKey: "ssh-ed25519 BBBB"}},
	}}
	if err := Write([]Change{{File: existing, Obj: u}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, existing, orig+"\n---\napiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n    name: b\nspec:\n    email: b@example.com\n    sshKeys:\n    - name: k\n      publicKey: ssh-ed25519 BBBB\n")
	if st, _ := os.Stat(existing); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
}

func TestWriteDelete(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.yaml")
	orig := "# header\n" + user("a") + "---\n# about b\n" + user("b") + "---\n" + user("c")
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	b := set.User("b")
	if err := Write([]Change{{Source: set.SourceOf(b), Obj: b, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "# header\n"+user("a")+"---\n"+user("c"))
	set = load(t, path)
	a := set.User("a")
	if err := Write([]Change{{Source: set.SourceOf(a), Delete: true}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "---\n"+user("c"))

	// An item of a List.
	list := filepath.Join(dir, "list.yaml")
	if err := os.WriteFile(list, []byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n# y is next\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set = load(t, list)
	if err := Write([]Change{{Source: &set.Objects[1].Source, Obj: set.Objects[1].Obj, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, list, "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n")
	set = load(t, list)
	if err := Write([]Change{{Source: &set.Objects[0].Source, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, list, "apiVersion: v1\nkind: List\nitems: []\n")
}

func TestWriteListItem(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.yaml")
	orig := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TeamList
items:
- metadata:
    name: a
  spec:
    displayName: A   # keep
- metadata:
    name: b
`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	a, b := set.Team("a"), set.Team("b")
	a.Spec.DisplayName = "Team A"
	b.Spec.Description = "second"
	if err := Write([]Change{{Source: set.SourceOf(a), Obj: a}, {Source: set.SourceOf(b), Obj: b}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, strings.Replace(orig, "displayName: A ", "displayName: Team A ", 1)+"  spec:\n    description: second\n")
}

func TestWriteKeepsFieldsOfPartialTypes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tcp.yaml")
	orig := `apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata:
  name: dev-1
  namespace: payments
spec:
  controlPlane:
    deployment:
      replicas: 2
  writePermissions:
    blockCreation: false
`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	tcp := set.TenantControlPlanes()[0]
	tcp.Spec.WritePermissions = stewardv1alpha1.Permissions{BlockCreate: true, BlockDelete: true}
	if err := Write([]Change{{Source: set.SourceOf(tcp), Obj: tcp}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, strings.Replace(orig, "blockCreation: false\n", "blockCreation: true\n    blockDeletion: true\n", 1))
}

func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.json")
	orig := "{\n  \"apiVersion\": \"butler.butlerlabs.dev/v1alpha1\",\n  \"kind\": \"Team\",\n  \"metadata\": {\"name\": \"j\"},\n  \"spec\": {\"displayName\": \"J\", \"resourceLimits\": {\"maxClusters\": 3}}\n}\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("j")
	*team.Spec.ResourceLimits.MaxClusters = 4
	team.Spec.DisplayName = "Jay"
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, strings.NewReplacer(`"J"`, `"Jay"`, "3}}", "4}}").Replace(orig))
	set = load(t, path)
	team = set.Team("j")
	team.Spec.Description = "d"
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, `{
  "apiVersion": "butler.butlerlabs.dev/v1alpha1",
  "kind": "Team",
  "metadata": {
    "name": "j"
  },
  "spec": {
    "displayName": "Jay",
    "resourceLimits": {
      "maxClusters": 4
    },
    "description": "d"
  }
}
`)
	if err := Write([]Change{{File: path, Obj: team}}); err == nil {
		t.Error("appending a second document to a JSON file")
	}
}

func TestWriteCRLF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "u.yaml")
	orig := strings.ReplaceAll(user("a"), "\n", "\r\n")
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	u := set.User("a")
	u.Spec.DisplayName = "A"
	u.Spec.Email = "a2@example.com"
	if err := Write([]Change{{Source: set.SourceOf(u), Obj: u}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, strings.Replace(orig, "a@example.com\r\n", "a2@example.com\r\n  displayName: A\r\n", 1))
}

// A document that uses anchors is not edited: an edit would turn the aliases into copies
// (or, under an alias, change every use). The refusal names the file and the anchor, and
// the file stays as it was.
func TestWriteAnchoredDocument(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.yaml")
	orig := "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: t}\nspec:\n  clusterDefaults: &d\n    workerCount: 2\n  environments:\n  - name: dev\n    clusterDefaults: *d\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("t")
	team.Spec.Environments[0].ClusterDefaults.WorkerCount = ptr(int32(5))
	err := Write([]Change{{Source: set.SourceOf(team), Obj: team}})
	if err == nil || !strings.Contains(err.Error(), "t.yaml") || !strings.Contains(err.Error(), "the anchor &d (line 5)") {
		t.Errorf("got %v, want a refusal naming the file and the anchor", err)
	}
	checkFile(t, path, orig)
}

func TestWriteFailureWritesNothing(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(a, []byte(user("a")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(user("b")), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(a, old, old)
	set := load(t, dir)
	ua, ub := set.User("a"), set.User("b")
	ua.Spec.DisplayName = "changed"
	newFile := filepath.Join(dir, "sub", "new.yaml")
	stdinSrc := Source{File: "-", Doc: 0}

	for name, second := range map[string]Change{
		"stdin":          {Source: &stdinSrc, Obj: ub},
		"wrong object":   {Source: set.SourceOf(ub), Obj: ua},
		"no such doc":    {Source: &Source{File: b, Doc: 5}, Obj: ub},
		"no object":      {File: b},
		"bad object":     {File: b, Obj: &v1alpha1.TeamList{}},
		"two edits":      {Source: set.SourceOf(ua), Obj: ua},
		"delete no src":  {File: b, Delete: true},
		"unknown object": {File: b, Obj: runtime.Object(&metav1.Status{})},
	} {
		err := Write([]Change{{Source: set.SourceOf(ua), Obj: ua}, {File: newFile, Obj: ub}, second})
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if readFile(t, a) != user("a") {
			t.Errorf("%s: a.yaml was written", name)
		}
		if st, _ := os.Stat(a); !st.ModTime().Equal(old) {
			t.Errorf("%s: a.yaml was touched", name)
		}
		if _, err := os.Stat(filepath.Join(dir, "sub")); err == nil {
			t.Errorf("%s: a directory was created", name)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("%s: left files behind: %v", name, entries)
		}
	}
	err := Write([]Change{{Source: &stdinSrc, Obj: ub}})
	if err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("stdin: %v", err)
	}
	err = Write([]Change{{Source: set.SourceOf(ub), Obj: ua}})
	if err == nil || !strings.Contains(err.Error(), `holds User "b", not User "a" (the file changed since it was read)`) {
		t.Errorf("identity check: %v", err)
	}
}

// TestWriteRandomEdits applies random combinations of edits to a commented file and
// checks that the file reads back as the object written, with the other document intact.
func TestWriteRandomEdits(t *testing.T) {
	strs := []string{"plain", "yes", "a: b", "# not a comment", " leading", "trailing ", "it's", `say "hi"`, "multi\nline\n", "ünïcode", "", "8080", "-dash", "{x}", "v1.30"}
	mutators := []func(r *rand.Rand, tm *v1alpha1.Team){
		func(r *rand.Rand, tm *v1alpha1.Team) {
			if tm.Labels == nil {
				tm.Labels = map[string]string{}
			}
			tm.Labels[strs[r.Intn(3)]+"k"] = "v"
		},
		func(r *rand.Rand, tm *v1alpha1.Team) { tm.Labels = nil },
		func(r *rand.Rand, tm *v1alpha1.Team) { tm.Spec.DisplayName = strs[r.Intn(len(strs))] },
		func(r *rand.Rand, tm *v1alpha1.Team) { tm.Spec.Description = strs[r.Intn(len(strs))] },
		func(r *rand.Rand, tm *v1alpha1.Team) {
			tm.Spec.Access.Users = append(tm.Spec.Access.Users, v1alpha1.TeamUser{Name: fmt.Sprintf("u%d@example.com", r.Intn(1000)), Role: v1alpha1.RoleViewer})
		},
		func(r *rand.Rand, tm *v1alpha1.Team) {
			if n := len(tm.Spec.Access.Users); n > 0 {
				i := r.Intn(n)
				tm.Spec.Access.Users = append(tm.Spec.Access.Users[:i:i], tm.Spec.Access.Users[i+1:]...)
			}
		},
		func(r *rand.Rand, tm *v1alpha1.Team) {
			for i := range tm.Spec.Access.Users {
				tm.Spec.Access.Users[i].Role = []v1alpha1.TeamRole{"admin", "operator", "viewer"}[r.Intn(3)]
			}
		},
		func(r *rand.Rand, tm *v1alpha1.Team) {
			r.Shuffle(len(tm.Spec.Environments), func(i, j int) {
				tm.Spec.Environments[i], tm.Spec.Environments[j] = tm.Spec.Environments[j], tm.Spec.Environments[i]
			})
		},
		func(r *rand.Rand, tm *v1alpha1.Team) {
			tm.Spec.Environments = append(tm.Spec.Environments, v1alpha1.EnvironmentSpec{
				Name: fmt.Sprintf("e%d", r.Intn(1000)), Description: strs[r.Intn(len(strs))],
				Access:          &v1alpha1.TeamAccess{Groups: []v1alpha1.TeamGroup{{Name: "g", Role: v1alpha1.RoleAdmin}}},
				ClusterDefaults: &v1alpha1.ClusterDefaults{DefaultAddons: []string{"a", "b"}},
			})
		},
		func(r *rand.Rand, tm *v1alpha1.Team) {
			if n := len(tm.Spec.Environments); n > 0 {
				tm.Spec.Environments = tm.Spec.Environments[:n-1]
			}
		},
		func(r *rand.Rand, tm *v1alpha1.Team) { tm.Spec.ResourceLimits = nil },
		func(r *rand.Rand, tm *v1alpha1.Team) {
			q := resource.MustParse(fmt.Sprintf("%dGi", r.Intn(100)))
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxMemory: &q, MaxClusters: ptr(int32(r.Intn(5)))}
		},
		func(r *rand.Rand, tm *v1alpha1.Team) { tm.Spec.ClusterDefaults = nil },
		func(r *rand.Rand, tm *v1alpha1.Team) {
			if tm.Spec.ClusterDefaults == nil {
				tm.Spec.ClusterDefaults = &v1alpha1.ClusterDefaults{}
			}
			tm.Spec.ClusterDefaults.DefaultAddons = append(tm.Spec.ClusterDefaults.DefaultAddons, strs[r.Intn(len(strs))])
		},
		func(r *rand.Rand, tm *v1alpha1.Team) { tm.Spec.Access = v1alpha1.TeamAccess{} },
		func(r *rand.Rand, tm *v1alpha1.Team) {
			tm.Status.Namespace = "payments"
			tm.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "True", Reason: "Ok", LastTransitionTime: metav1.NewTime(time.Unix(1700000000, 0))}}
		},
	}
	r := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	tail := commentedFile[strings.Index(commentedFile, "---\napiVersion: v1"):]
	for i := 0; i < 400; i++ {
		if err := os.WriteFile(path, []byte(commentedFile), 0o644); err != nil {
			t.Fatal(err)
		}
		set := load(t, path)
		team := set.Team("payments")
		for n := 1 + r.Intn(4); n > 0; n-- {
			mutators[r.Intn(len(mutators))](r, team)
		}
		if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		out := readFile(t, path)
		if os.Getenv("SHOWW") != "" && i%50 == 7 {
			t.Logf("%s", out)
		}
		got, err := Decode(path, []byte(out))
		if err != nil {
			t.Fatalf("iteration %d: %v\n%s", i, err, out)
		}
		a, _ := json.Marshal(team)
		b, _ := json.Marshal(got[0].Obj)
		if string(a) != string(b) {
			t.Fatalf("iteration %d: read back differs\n%s", i, out)
		}
		if !strings.HasSuffix(out, tail) || !strings.HasPrefix(out, "# Payments team, managed by the platform team.\n# Do not edit by hand outside of a pull request.\n\n---\n") {
			t.Fatalf("iteration %d: the other documents changed\n%s", i, out)
		}
	}
}

func TestWriteRemovesKeyWithItsComment(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte(commentedFile), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	team := set.Team("payments")
	team.Spec.Access = v1alpha1.TeamAccess{}
	team.Labels = nil
	team.Status.Namespace = "payments"
	if err := Write([]Change{{Source: set.SourceOf(team), Obj: team}}); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`  # people
  access:
    users:
    - name: alice@example.com   # lead
      role: admin

    # bob helps out
    - name: bob@example.com
      role: 'operator'
`, "", "  labels: {tier: gold}\n", "",
		"  # end of spec\n", "  # end of spec\nstatus:\n  namespace: payments\n").Replace(commentedFile)
	checkFile(t, path, want)
}
