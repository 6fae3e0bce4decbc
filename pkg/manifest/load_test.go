package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func user(name string) string {
	return "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: " + name + "\nspec:\n  email: " + name + "@example.com\n"
}

func TestLoadDirectory(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b.yaml":                    user("b"),
		"a/z.yml":                   user("z") + "---\n" + user("y"),
		"a/c.json":                  `{"apiVersion": "butler.butlerlabs.dev/v1alpha1", "kind": "User", "metadata": {"name": "c"}, "spec": {"email": "c@example.com"}}`,
		"a/notes.txt":               "not: a manifest\n",
		".git/x.yaml":               "broken: [\n",
		".github/workflows/ci.yaml": "on: [push\n",
		// Hidden entries are read, as kubectl apply -R and Flux read them: only the tool
		// folders are left out.
		"a/.hidden/x.yaml":       user("h"),
		"a/.also-hidden.yaml":    user("ah"),
		"provider.yaml":          "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: ProviderConfig\nmetadata: {name: h, namespace: butler-system}\nspec: {provider: harvester, credentialsRef: {name: s}, harvester: {networkName: default/vlan}}\n",
		"clusters/tc.yaml":       clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1}\n",
		"clusters/no-ns.yaml":    "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: TenantCluster\nmetadata: {name: loose}\nspec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1}\n",
		"team/team.yaml":         teamHeader,
		"team/other-tools.yaml":  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: {name: k}\nresources: [a.yaml]\n",
		"team/empty.yaml":        "",
		"team/only-comment.yaml": "# nothing yet\n",
	})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	set, err := Load([]string{link, filepath.Join(link, "b.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	set.inOrder(func(o Ref) { names = append(names, o.Kind+"/"+o.Name) })
	want := "User/ah User/h User/c User/z User/y User/b TenantCluster/loose TenantCluster/c ProviderConfig/h Kustomization/k Team/payments"
	if strings.Join(names, " ") != want {
		t.Errorf("order:\n got %s\nwant %s", strings.Join(names, " "), want)
	}
	if left := []string{filepath.Join(link, ".git"), filepath.Join(link, ".github")}; !slices.Equal(set.LeftOut, left) {
		t.Errorf("left out: %q, want %q", set.LeftOut, left)
	}
	if len(set.Users()) != 6 || len(set.Teams()) != 1 || set.Clusters.Len() != 2 || len(set.ProviderConfigs()) != 1 {
		t.Errorf("typed accessors: %d users, %d teams", len(set.Users()), len(set.Teams()))
	}
	if set.Team("payments") == nil || set.Team("nope") != nil || set.User("y") == nil || set.IdentityProvider("x") != nil {
		t.Error("lookups by name")
	}
	if set.ProviderConfig("", "h") == nil || set.ProviderConfig("butler-system", "h") == nil || set.ProviderConfig("other", "h") != nil {
		t.Error("ProviderConfig lookup (empty namespace means butler-system)")
	}
	if set.Clusters.Find("payments", "c") < 0 || set.Clusters.Find("payments", "loose") < 0 {
		t.Error("TenantCluster lookup, with a manifest that leaves the namespace out")
	}
	team := set.Team("payments")
	if src := set.SourceOf(team); src == nil || src.File != filepath.Join(link, "team/team.yaml") || src.Line != 1 {
		t.Errorf("SourceOf: %v", src)
	}
	if set.SourceOf(&v1alpha1.Team{}) != nil {
		t.Error("SourceOf an object not in the set")
	}
	if err := set.Add(Object{Obj: &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}}}); err == nil {
		t.Error("Add of a duplicate")
	}
	if err := set.Add(Object{Obj: &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "new"}}}); err != nil || set.Team("new") == nil {
		t.Errorf("Add: %v", err)
	}
}

func TestLoadStdin(t *testing.T) {
	set, err := Load([]string{"-"}, strings.NewReader(user("s")))
	if err != nil {
		t.Fatal(err)
	}
	if set.Objects[0].Source.File != "-" || set.Objects[0].Source.String() != "<stdin>:1 (document 1)" {
		t.Errorf("source: %v", set.Objects[0].Source)
	}
	if _, err := Load([]string{"-", "-"}, strings.NewReader(user("s"))); err == nil {
		t.Error("stdin twice")
	}
}

func TestLoadErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": user("dup"),
		"b.yaml": "# first\n---\n" + user("dup") + "---\n" + teamHeader + "spec:\n  resourceLimits: {maxClusters: -3}\n",
		"c.yaml": teamHeader + "spec:\n  bogus: 1\n",
	})
	set, err := Load([]string{dir, filepath.Join(dir, "missing.yaml")}, nil)
	if set != nil || err == nil {
		t.Fatal("expected errors")
	}
	msg := err.Error()
	for _, want := range []string{
		`b.yaml:15: Team "payments" (document 2): spec.resourceLimits.maxClusters: Invalid value: -3: should be greater than or equal to 0`,
		`c.yaml:6: Team "payments" (document 1): spec.bogus: unknown field`,
		`missing.yaml: no such file or directory`,
		`b.yaml:3: User "dup" (document 1): duplicate object: also defined at ` + filepath.Join(dir, "a.yaml") + `:1 (document 1)`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Error("errors.As")
	}
}

// A tool folder named as a path is read, as a file named directly is; a caller's scratch
// directory below the paths is neither read nor listed.
func TestLoadToolFolderNamedAndScratch(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		".github/u.yaml":   user("g"),
		"scratch/x.yaml":   "broken: [\n",
		".scratch/x.yaml":  user("s"),
		"clusters/.u.yaml": user("d"),
	})
	set, err := LoadWith([]string{filepath.Join(dir, ".github"), dir}, nil, Options{Scratch: []string{filepath.Join(dir, "scratch")}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range set.Objects {
		names = append(names, o.Name)
	}
	if got := strings.Join(names, " "); got != "g s d" {
		t.Errorf("read %q, want g s d", got)
	}
	if !slices.Equal(set.LeftOut, []string{filepath.Join(dir, ".github")}) {
		t.Errorf("left out: %q", set.LeftOut)
	}
	files, err := Walk([]string{dir}, Options{Scratch: []string{filepath.Join(dir, "scratch")}})
	if err != nil || len(files) != 2 {
		t.Errorf("Walk: %q, %v; want the two hidden files", files, err)
	}
}
