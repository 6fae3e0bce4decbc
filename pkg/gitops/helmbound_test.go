package gitops

import (
	"strings"
	"testing"
)

// A release's documents share one node bound, as the documents of one file do: a chart
// whose documents each decode alone but together pass the bound is refused, naming the
// release, not loaded document by document.
func TestChartDocumentsShareTheBound(t *testing.T) {
	template := `{{ range $d := until 20 }}---
apiVersion: v1
kind: ConfigMap
metadata:
  name: big-{{ $d }}
  namespace: apps
data:
{{- range $k := until 30000 }}
  k{{ $k }}: v
{{- end }}
{{ end }}`
	_, err := Load([]string{boundTree(t, template)}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), `HelmRelease "apps/app": its chart's documents`) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("got %v, want the release refused past the one node bound of its documents", err)
	}
}
