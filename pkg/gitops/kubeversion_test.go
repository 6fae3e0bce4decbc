package gitops

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestChartKubeVersion: a chart that requires a supported Kubernetes (kubeVersion:
// ">=1.23.0-0", as published charts write it) renders, as `helm template` renders it,
// with .Capabilities.KubeVersion the version of the Kubernetes libraries of go.mod; the
// Helm library's own placeholder, v1.20.0, would refuse it.
func TestChartKubeVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/apimachinery v0\.(\d+)\.`).FindSubmatch(mod)
	if m == nil || string(m[1]) != strconv.Itoa(kubeMinor) {
		t.Fatalf("kubeMinor is %d; go.mod's k8s.io/apimachinery is %q: set kubeMinor to its minor version", kubeMinor, m)
	}
	dir := boundTree(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n")
	writeFile(t, dir+"/charts/app/Chart.yaml", []byte("apiVersion: v2\nname: app\nversion: 0.1.0\nkubeVersion: \">=1.23.0-0\"\n"))
	tree, err := Load([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, tg := range tree.Targets {
		for _, o := range tg.Set.Objects {
			if o.Kind == "ConfigMap" {
				got, _, _ = unstructured.NestedString(content(&o), "data", "kube")
			}
		}
	}
	if want := "v1." + strconv.Itoa(kubeMinor) + ".0"; got != want {
		t.Errorf(".Capabilities.KubeVersion.Version = %q, want %q", got, want)
	}
}
