package gitops

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// destCluster is a TenantCluster without metadata.namespace, of the team named.
func destCluster(name, team string) string {
	return `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: ` + name + `
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: ` + team + `}
  workers: {replicas: 1, machineTemplate: {cpu: 2, memory: 4Gi, diskSize: 100Gi}}
`
}

// destApp is an Argo CD Application of source (a YAML map) to mgmt's namespace ns.
func destApp(name, source, ns string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ` + name + `, namespace: argocd}
spec:
  project: default
  source: ` + source + `
  destination: {name: mgmt, namespace: ` + ns + `}
---
`
}

// TestDestinationNamespace: what an Application renders without a namespace lands in its
// destination's namespace, as Argo CD applies it, for namespaced kinds the tools read
// (a TenantCluster), whether a directory, kustomize or a Helm chart renders it; a
// cluster-scoped Team stays without one, a namespace written stays, a kind the tools do
// not read is left as written, and the tree's own object keeps its (empty) namespace.
// One chart installed in two teams' namespaces is two clusters, not a duplicate.
func TestDestinationNamespace(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"apps/apps.yaml": destApp("plain", "{repoURL: https://github.com/example/p, path: plain}", "team-x") +
			destApp("kust", "{repoURL: https://github.com/example/p, path: kust}", "team-k") +
			destApp("chart-x", "{repoURL: https://github.com/example/p, path: charts/cluster}", "team-x") +
			destApp("chart-y", "{repoURL: https://github.com/example/p, path: charts/cluster}", "team-y") +
			destApp("none", "{repoURL: https://github.com/example/p, path: none}", ""),
		"plain/web.yaml": destCluster("web", "team-x") + "---\n" + strings.Replace(destCluster("db", "team-x"), "name: db\n", "name: db\n  namespace: elsewhere\n", 1) +
			"---\napiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: team-x}\nspec: {}\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
		"kust/kustomization.yaml":               "resources: [cluster.yaml]\nnamePrefix: k-\n",
		"kust/cluster.yaml":                     destCluster("api", "team-k"),
		"charts/cluster/Chart.yaml":             "apiVersion: v2\nname: cluster\nversion: 0.1.0\n",
		"charts/cluster/templates/cluster.yaml": destCluster("chart", "{{ .Release.Namespace }}"),
		"none/cluster.yaml":                     destCluster("loose", "team-x"),
	})
	tree, err := Load([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Targets) != 1 {
		t.Fatalf("targets %v, want argocd:mgmt alone", tree.Targets)
	}
	rendered, err := tree.Targets[0].Set.All()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range rendered {
		got[o.Kind+" "+o.Name] = o.Namespace
		if tc, ok := o.Obj.(*v1alpha1.TenantCluster); ok && tc.Namespace != o.Namespace {
			t.Errorf("%s: the object's namespace %q, its record's %q", o.Name, tc.Namespace, o.Namespace)
		}
		if o.Name == "chart" && o.Namespace == "team-y" && o.Obj.(*v1alpha1.TenantCluster).TeamName() != "team-y" {
			t.Errorf("chart in team-y: .Release.Namespace is not the destination's: team %q", o.Obj.(*v1alpha1.TenantCluster).TeamName())
		}
	}
	want := map[string]string{"TenantCluster web": "team-x", "TenantCluster db": "elsewhere", "Team team-x": "",
		"ConfigMap settings": "", "TenantCluster k-api": "team-k", "TenantCluster loose": ""}
	for k, ns := range want {
		if g, ok := got[k]; !ok || g != ns {
			t.Errorf("%s: namespace %q (rendered %v), want %q", k, g, ok, ns)
		}
	}
	var charts []string
	for _, o := range rendered {
		if o.Name == "chart" {
			charts = append(charts, o.Namespace)
		}
	}
	if strings.Join(charts, ",") != "team-x,team-y" && strings.Join(charts, ",") != "team-y,team-x" {
		t.Errorf("the chart's cluster in namespaces %v, want team-x and team-y", charts)
	}
	raw, err := tree.Raw.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range raw {
		if o.Kind == "TenantCluster" && o.Name == "web" {
			if o.Namespace != "" || o.Obj.(*v1alpha1.TenantCluster).Namespace != "" {
				t.Errorf("the tree's own web was changed: namespace %q", o.Namespace)
			}
		}
	}
}
