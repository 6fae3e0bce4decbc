package edit

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func ptr[T any](v T) *T { return &v }

func TestWriteRendersWithoutNoise(t *testing.T) {
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "t"}}
	team.Spec.ClusterDefaults = &v1alpha1.ClusterDefaults{WorkerCPU: ptr(int32(4)), DefaultAddons: []string{"on", "8080", "yes"}}
	team.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxCPUCores: ptr(resource.MustParse("64")), MaxClusters: ptr(int32(0))}
	text, err := renderNew(team, defaultStyle)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: t
spec:
  resourceLimits:
    maxClusters: 0
    maxCPUCores: "64"
  clusterDefaults:
    workerCPU: 4
    defaultAddons:
      - "on"
      - "8080"
      - "yes"
`
	if text != want {
		t.Errorf("got:\n%s\nwant:\n%s", text, want)
	}
	for _, noise := range []string{"status", "creationTimestamp", "{}", "null"} {
		if strings.Contains(text, noise) {
			t.Errorf("rendered YAML contains %q", noise)
		}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind": "ConfigMap", "apiVersion": "v1", "metadata": map[string]any{"name": "c"},
		"data": map[string]any{"multi": "line one\nline two\n", "empty": "", "n": "1.5"},
	}}
	text, err = renderNew(u, defaultStyle)
	if err != nil {
		t.Fatal(err)
	}
	want = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  empty: \"\"\n  multi: |\n    line one\n    line two\n  \"n\": \"1.5\"\n"
	if text != want {
		t.Errorf("got:\n%s\nwant:\n%s", text, want)
	}
}
