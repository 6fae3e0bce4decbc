package gitops

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

const repoURL = "https://github.com/example/platform.git"

// cluster is a TenantCluster of team t named n.
func cluster(t, n string) string {
	return `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata: {name: ` + n + `, namespace: ` + t + `}
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: ` + t + `}
  workers: {replicas: 1, machineTemplate: {cpu: 2, memory: 4Gi, diskSize: 50Gi}}
`
}

// app is an Application of this repository's path p, into destination d.
func app(name, p, d string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ` + name + `, namespace: argocd}
spec:
  project: default
  source: {repoURL: ` + repoURL + `, path: ` + p + `}
  destination: {name: ` + d + `}
`
}

// appSet is an ApplicationSet of the generators given (YAML indented for spec), its
// template naming each Application and path from the parameters.
func appSet(goTemplate bool, generators, name, path, dest string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set, namespace: argocd}
spec:
  goTemplate: ` + map[bool]string{true: "true", false: "false"}[goTemplate] + `
  generators:
` + generators + `
  template:
    metadata: {name: '` + name + `'}
    spec:
      project: default
      source: {repoURL: ` + repoURL + `, path: '` + path + `'}
      destination: {name: '` + dest + `'}
`
}

// loadTree writes files below a new directory and loads it.
func loadTree(t *testing.T, files map[string]string) (*Tree, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), []byte(text))
	}
	return Load([]string{dir}, nil, Options{})
}

// clustersByTarget lists each target's TenantClusters, "target: ns/name".
func clustersByTarget(tree *Tree) []string {
	var out []string
	for _, tg := range tree.Targets {
		tcs, err := tg.Set.TenantClusters()
		if err != nil {
			out = append(out, err.Error())
		}
		for _, c := range tcs {
			out = append(out, tg.Name+": "+c.Namespace+"/"+c.Name)
		}
	}
	sort.Strings(out)
	return out
}

func TestAppSetGenerators(t *testing.T) {
	teams := map[string]string{
		"teams/payments/web.yaml": cluster("payments", "web"),
		"teams/search/idx.yaml":   cluster("search", "idx"),
		"teams/legacy/old.yaml":   cluster("legacy", "old"),
	}
	cases := map[string]struct {
		set       string
		extra     map[string]string
		apps      []string
		want      []string
		unreached int // the clusters no generated Application applies
	}{
		"list, fasttemplate": {
			set: appSet(false, `    - list:
        elements:
          - {team: payments, cluster: mgmt-a}
          - {team: search, cluster: mgmt-b}`, "{{team}}", "teams/{{team}}", "{{cluster}}"),
			apps: []string{"argocd/payments", "argocd/search"},
			want: []string{"argocd:mgmt-a: payments/web", "argocd:mgmt-b: search/idx"},
		},
		"git directories with an exclusion, go template": {
			set: appSet(true, `    - git:
        repoURL: `+repoURL+`
        revision: HEAD
        directories:
          - path: teams/*
          - path: teams/legacy
            exclude: true`, "team-{{.path.basename}}", "{{.path.path}}", "mgmt-{{index .path.segments 0}}"),
			apps: []string{"argocd/team-payments", "argocd/team-search"},
			want: []string{"argocd:mgmt-teams: payments/web", "argocd:mgmt-teams: search/idx"},
		},
		"git files, flattened": {
			set: appSet(false, `    - git:
        repoURL: `+repoURL+`
        revision: HEAD
        files:
          - path: config/*/config.json`, "{{path.basename}}", "teams/{{team.name}}", "{{cluster.name}}"),
			extra: map[string]string{
				"config/payments/config.json": `{"team": {"name": "payments"}, "cluster": {"name": "mgmt-a"}}`,
				"config/search/config.json":   `{"team": {"name": "search"}, "cluster": {"name": "mgmt-b"}}`,
			},
			apps: []string{"argocd/payments", "argocd/search"},
			want: []string{"argocd:mgmt-a: payments/web", "argocd:mgmt-b: search/idx"},
		},
		"matrix of git directories and a list": {
			set: appSet(true, `    - matrix:
        generators:
          - git:
              repoURL: `+repoURL+`
              revision: HEAD
              directories: [{path: teams/pay*}]
          - list:
              elements: [{cluster: mgmt-a}, {cluster: mgmt-b}]`, "{{.path.basename}}-{{.cluster}}", "{{.path.path}}", "{{.cluster}}"),
			apps:      []string{"argocd/payments-mgmt-a", "argocd/payments-mgmt-b"},
			want:      []string{"argocd:mgmt-a: payments/web", "argocd:mgmt-b: payments/web"},
			unreached: 1,
		},
		"merge by a key": {
			set: appSet(false, `    - merge:
        mergeKeys: [team]
        generators:
          - list:
              elements: [{team: payments, cluster: mgmt-a}, {team: search, cluster: mgmt-a}]
          - list:
              elements: [{team: search, cluster: mgmt-b}]`, "{{team}}", "teams/{{team}}", "{{cluster}}"),
			apps: []string{"argocd/payments", "argocd/search"},
			want: []string{"argocd:mgmt-a: payments/web", "argocd:mgmt-b: search/idx"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{"argocd/set.yaml": c.set}
			for k, v := range teams {
				files[k] = v
			}
			for k, v := range c.extra {
				files[k] = v
			}
			tree, err := loadTree(t, files)
			if err != nil {
				t.Fatal(err)
			}
			if len(tree.Generated) != 1 || !reflect.DeepEqual(tree.Generated[0].Apps, c.apps) {
				t.Errorf("generated %+v, want %v", tree.Generated, c.apps)
			}
			if got := clustersByTarget(tree); !reflect.DeepEqual(got, c.want) {
				t.Errorf("clusters %q, want %q", got, c.want)
			}
			if len(tree.Unreached) != 1+c.unreached {
				t.Errorf("%d objects unreached, want %d (legacy's always)", len(tree.Unreached), 1+c.unreached)
			}
		})
	}
}

// TestAppSetNotRendered: a generator that asks a cluster or a forge, and a git generator
// of another repository (this one's URL named by a written Application), are counted and
// listed, not expanded.
func TestAppSetNotRendered(t *testing.T) {
	tree, err := loadTree(t, map[string]string{
		"argocd/apps.yaml": app("apps", "teams/payments", "mgmt-a"),
		"argocd/set.yaml": appSet(false, `    - clusters: {}
    - git:
        repoURL: https://github.com/example/other.git
        directories: [{path: teams/*}]`, "{{name}}", "teams/{{name}}", "{{name}}"),
		"teams/payments/web.yaml": cluster("payments", "web"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"ApplicationSet (argoproj.io) with a clusters generator":                  1,
		"ApplicationSet (argoproj.io) with a git generator of another repository": 1,
	}
	if !reflect.DeepEqual(tree.NotRendered, want) {
		t.Errorf("not rendered %v, want %v", tree.NotRendered, want)
	}
	if len(tree.Unrendered) != 2 || tree.Unrendered[0].Field != "spec.generators[0]" || tree.Unrendered[1].Field != "spec.generators[1]" {
		t.Errorf("unrendered %+v", tree.Unrendered)
	}
	if got := clustersByTarget(tree); !reflect.DeepEqual(got, []string{"argocd:mgmt-a: payments/web"}) {
		t.Errorf("clusters %q", got)
	}
}

// TestAppsOfApps: an Application whose path holds an Application that holds an
// ApplicationSet: each is an entry point, judged in its own destination's target.
func TestAppsOfApps(t *testing.T) {
	tree, err := loadTree(t, map[string]string{
		"bootstrap/root.yaml":     app("root", "argocd", "in-cluster"),
		"argocd/platform.yaml":    app("platform", "platform", "in-cluster"),
		"platform/teams.yaml":     appSet(false, "    - list:\n        elements: [{team: payments}]", "{{team}}", "teams/{{team}}", "mgmt-a"),
		"teams/payments/web.yaml": cluster("payments", "web"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := clustersByTarget(tree); !reflect.DeepEqual(got, []string{"argocd:mgmt-a: payments/web"}) {
		t.Errorf("clusters %q", got)
	}
	if len(tree.Unreached) != 0 {
		t.Errorf("unreached %v", tree.Unreached)
	}
	var names []string
	for _, tg := range tree.Targets {
		names = append(names, tg.Name)
	}
	if !reflect.DeepEqual(names, []string{"argocd:in-cluster", "argocd:mgmt-a"}) {
		t.Errorf("targets %q", names)
	}
}

func TestAppsOfAppsCycle(t *testing.T) {
	_, err := loadTree(t, map[string]string{
		"a/a.yaml": app("a", "b", "in-cluster"),
		"b/b.yaml": app("b", "a", "in-cluster"),
	})
	want := "Applications create each other in a cycle: Application argocd/a"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "-> Application argocd/b (") {
		t.Fatalf("error %v, want one naming the chain", err)
	}
	// An Application in the directory it applies manages itself: no cycle.
	if _, err := loadTree(t, map[string]string{"apps/root.yaml": app("root", "apps", "in-cluster")}); err != nil {
		t.Errorf("self-managed: %v", err)
	}
}

// TestMultiSource: each source with a path of this repository renders; a ref-only source
// renders nothing.
func TestMultiSource(t *testing.T) {
	tree, err := loadTree(t, map[string]string{
		"argocd/multi.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: multi, namespace: argocd}
spec:
  project: default
  destination: {name: mgmt-a}
  sources:
    - {repoURL: ` + repoURL + `, path: teams/payments}
    - {repoURL: ` + repoURL + `, path: teams/search}
    - {repoURL: ` + repoURL + `, ref: values}
`,
		"teams/payments/web.yaml": cluster("payments", "web"),
		"teams/search/idx.yaml":   cluster("search", "idx"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := clustersByTarget(tree); !reflect.DeepEqual(got, []string{"argocd:mgmt-a: payments/web", "argocd:mgmt-a: search/idx"}) {
		t.Errorf("clusters %q", got)
	}
	if len(tree.NotRendered) != 0 {
		t.Errorf("not rendered %v", tree.NotRendered)
	}
}

// TestRemoteKustomizeResource: an entry whose kustomization (or one it uses) names a
// remote resource is not built (kustomize would fetch it): counted and listed, with the
// URL's credentials left out.
func TestRemoteKustomizeResource(t *testing.T) {
	tree, err := loadTree(t, map[string]string{
		"argocd/apps.yaml":                app("apps", "apps/overlay", "mgmt-a"),
		"apps/overlay/kustomization.yaml": "resources: [../base]\n",
		"apps/base/kustomization.yaml":    "resources:\n- https://user:secret@example.com/install.yaml\n- web.yaml\n",
		"apps/base/web.yaml":              cluster("payments", "web"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.NotRendered["Application (argoproj.io) with a remote kustomize resource"]; got != 1 {
		t.Errorf("not rendered %v", tree.NotRendered)
	}
	if len(tree.Unrendered) != 1 || !strings.Contains(tree.Unrendered[0].Reason, "apps/base/kustomization.yaml names the remote resource https://example.com/install.yaml") ||
		strings.Contains(tree.Unrendered[0].Reason, "secret") {
		t.Errorf("unrendered %+v", tree.Unrendered)
	}
	if len(tree.Unreached) != 1 {
		t.Errorf("the cluster is applied by nothing rendered: unreached %v", tree.Unreached)
	}
}

// TestAppSetManagesItself: an ApplicationSet one of whose Applications applies the
// directory it is written in generates itself again: no cycle, and every Application it
// generated is judged.
func TestAppSetManagesItself(t *testing.T) {
	tree, err := loadTree(t, map[string]string{
		"argocd/set.yaml": appSet(false, `    - git:
        repoURL: `+repoURL+`
        directories: [{path: "*"}]`, "{{path.basename}}", "{{path}}", "mgmt-{{path.basename}}"),
		"payments/web.yaml": cluster("payments", "web"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Generated) != 1 || !reflect.DeepEqual(tree.Generated[0].Apps, []string{"argocd/argocd", "argocd/payments"}) {
		t.Errorf("generated %+v", tree.Generated)
	}
	if got := clustersByTarget(tree); !reflect.DeepEqual(got, []string{"argocd:mgmt-payments: payments/web"}) {
		t.Errorf("clusters %q", got)
	}
}

// TestAppSetRemoteRepo: a git generator whose repoURL is a remote's of the git repository
// the tree is in is this repository's, though no written Application names that URL.
func TestAppSetRemoteRepo(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"argocd/apps.yaml": app("apps", "teams/payments", "mgmt-a"),
		"argocd/set.yaml": appSet(false, `    - git:
        repoURL: https://github.com/example/mirror.git
        directories: [{path: teams/*}]`, "set-{{path.basename}}", "{{path}}", "mgmt-b"),
		"teams/payments/web.yaml": cluster("payments", "web"),
	} {
		writeFile(t, filepath.Join(dir, name), []byte(text))
	}
	for _, remote := range []string{"", "git@github.com:example/mirror.git"} {
		tree, err := Load([]string{dir}, nil, Options{Remotes: func() ([]Remote, error) { return []Remote{{Name: "origin", URL: remote}}, nil }})
		if err != nil {
			t.Fatal(err)
		}
		generated := len(tree.Generated) == 1 && len(tree.Generated[0].Apps) == 1
		if generated != (remote != "") {
			t.Errorf("remote %q: generated %+v, not rendered %v", remote, tree.Generated, tree.NotRendered)
		}
	}
}
