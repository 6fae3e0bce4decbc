package gitops

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// boundTree is a tree whose one HelmRelease installs a chart of one template.
func boundTree(t *testing.T, template string) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"charts/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"charts/app/templates/app.yaml": template,
		"release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: apps
spec:
  chart:
    spec:
      chart: ./charts/app
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
`,
	})
	return dir
}

func TestChartBounds(t *testing.T) {
	for _, tc := range []struct {
		name, template string
		bounds         ChartBounds
		want           string
	}{
		// A loop of millions of turns that writes nothing: past the time bound (it ends by
		// itself a little later, so the test leaves nothing running).
		{"time", `{{ range until 3000 }}{{ range until 3000 }}{{ end }}{{ end }}`,
			ChartBounds{RenderTimeout: 20 * time.Millisecond}, "render given up: it ran past 20ms"},
		{"output", `{{ range until 2000 }}xxxxxxxxxx{{ end }}`,
			ChartBounds{MaxRenderBytes: 1 << 10}, "render given up: it wrote 20000 bytes, past the bound of 1 KiB"},
		// The same output from a render long enough for the heap guard to sample it (a
		// million turns, each making a list): what it writes is refused, not the heap it
		// works in (the bound on output is not the heap's; it was, and this failed under
		// load, when the plain case above ran past one sample).
		{"output-slow", `{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}{{ range until 2000 }}xxxxxxxxxx{{ end }}`,
			ChartBounds{MaxRenderBytes: 1 << 10}, "render given up: it wrote 20000 bytes, past the bound of 1 KiB"},
		// A render whose live heap grows from its first turn (a dictionary it keeps filling)
		// and runs long past one sample: every sample, after a collection too, sees it past
		// the bound (a loop that only made garbage failed when a collection came between
		// samples). It ends by itself well under a second after it is given up.
		{"heap", `{{ $d := dict }}{{ range until 200000 }}{{ $_ := set $d (toString .) . }}{{ end }}`,
			ChartBounds{MaxRenderHeap: 1 << 10}, "render given up: it held more than 1 KiB"},
		{"chart", `{{/* ` + strings.Repeat("x", 4<<10) + ` */}}`,
			ChartBounds{MaxChartBytes: 1 << 10}, "the chart's files are past 1 KiB (the bound of one chart)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]string{boundTree(t, tc.template)}, nil, Options{Charts: tc.bounds})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `HelmRelease "apps/app": chart `) {
				t.Fatalf("got %v, want an error naming the release and saying %q", err, tc.want)
			}
		})
	}
}

// A chart's rendered objects are placed at their template, a field set from a plain
// .Values expression at the values line that set it last.
func TestChartPositions(t *testing.T) {
	dir := boundTree(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  labels:
    example.com/tier: {{ .Values.tier | quote }}
data:
  literal: "x"
`)
	writeTree(t, dir, map[string]string{"charts/app/values.yaml": "tier: one\n"})
	check := func(wantFile string, wantLine int) {
		t.Helper()
		tree, err := Load([]string{dir}, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		o := tree.Targets[0].Set.Objects
		for i := range o {
			if o[i].Kind != "ConfigMap" {
				continue
			}
			if f, l := o[i].Position("metadata.labels[example.com/tier]"); !strings.HasSuffix(f, wantFile) || l != wantLine {
				t.Errorf("tier at %s:%d, want %s:%d", f, l, wantFile, wantLine)
			}
			if f, l := o[i].Position("data.literal"); !strings.HasSuffix(f, "charts/app/templates/app.yaml") || l != 8 {
				t.Errorf("literal at %s:%d, want the template's line 8", f, l)
			}
			if n := o[i].OriginNote("metadata.labels[example.com/tier]"); !strings.Contains(n, "{{ .Values.tier }} in ") || !strings.HasSuffix(n, "templates/app.yaml:6") {
				t.Errorf("note %q", n)
			}
			return
		}
		t.Fatal("no ConfigMap rendered")
	}
	check("charts/app/values.yaml", 1)
	rel := dir + "/release.yaml"
	writeTree(t, dir, map[string]string{"release.yaml": readFile(t, rel) + "  values:\n    other: 1\n    tier: two\n"})
	check("release.yaml", 16)
}

func readFile(t *testing.T, p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A chart loaded once renders for each release as if loaded for it alone: a release that
// disables an aliased subchart, or imports its values, changes nothing the next release
// of the same chart renders.
func TestChartLoadedOnceRendersEachRelease(t *testing.T) {
	dir := t.TempDir()
	release := func(name, values string) string {
		return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ` + name + `
  namespace: apps
spec:
  chart:
    spec:
      chart: ./charts/app
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
  values:
` + values
	}
	writeTree(t, dir, map[string]string{
		"charts/app/Chart.yaml": `apiVersion: v2
name: app
version: 0.1.0
dependencies:
  - name: db
    alias: store
    version: 0.1.0
    condition: store.enabled
    import-values:
      - child: exported
        parent: fromStore
`,
		"charts/app/values.yaml": "fromStore: {}\n",
		"charts/app/templates/app.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-app
data:
  imported: {{ .Values.fromStore.size | default "none" | quote }}
`,
		"charts/app/charts/db/Chart.yaml":  "apiVersion: v2\nname: db\nversion: 0.1.0\n",
		"charts/app/charts/db/values.yaml": "enabled: true\nexported:\n  size: small\n",
		"charts/app/charts/db/templates/db.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-store
data:
  size: {{ .Values.exported.size | quote }}
`,
		"a.yaml": release("a", "    store:\n      exported:\n        size: large\n"),
		"b.yaml": release("b", "    store:\n      enabled: false\n"),
		"c.yaml": release("c", "    other: 1\n"),
	})
	tree, err := Load([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range tree.Targets[0].Set.Objects {
		if o.Kind == "ConfigMap" {
			u := content(&o)
			got[o.Name] = fmt.Sprint(u["data"])
		}
	}
	want := map[string]string{
		// Helm imports the subchart's own values, not the release's (as helm template)
		"a-app": "map[imported:small]", "a-store": "map[size:large]",
		"b-app": "map[imported:none]",
		"c-app": "map[imported:small]", "c-store": "map[size:small]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rendered %v\nwant     %v", got, want)
	}
}
