package gitops

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	helmvalues "helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/runtime"
	sigsyaml "sigs.k8s.io/yaml"
)

// A differential test: generated charts and values, rendered through a HelmRelease or an
// Argo CD Application of a generated tree (Load), and by Helm's own install, client only
// as `helm template` runs it, given the same chart and the values as Helm's command line
// takes them (-f files, --set, --set-string, --set-file). The two must render the same
// objects. The templates write their whole values (toJson), the release's name and
// namespace, and a subchart's, so a difference in how values merge shows.

// helmCase is one generated install, and the same install as Helm's command line says it.
type helmCase struct {
	files      map[string]string  // the tree, by path
	cli        helmvalues.Options // the values as Helm's flags: -f of cliFiles, --set-file of files
	cliFiles   map[string]string  // the files Helm's -f reads, by path
	sets       []string           // --set and --set-string after the files (Flux's targetPath)
	stringSets []string
	chartFiles map[string]string // the chart Helm renders: the tree's, or source-controller's repackaging
	name, ns   string
}

func TestHelmDifferential(t *testing.T) {
	prev := log.Writer()
	log.SetOutput(io.Discard) // Helm's warnings on values it cannot coalesce
	defer log.SetOutput(prev)
	r := rand.New(rand.NewSource(42))
	n := 300
	if testing.Short() {
		n = 40
	}
	for i := 0; i < n; i++ {
		var c helmCase
		if i%2 == 0 {
			c = genFluxCase(r, i)
		} else {
			c = genArgoCase(r, i)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkHelmCase(t, c) })
	}
}

func checkHelmCase(t *testing.T, c helmCase) {
	dir := t.TempDir()
	writeTree(t, dir, c.files)
	refDir := filepath.Join(t.TempDir(), "chart")
	writeTree(t, refDir, c.chartFiles)
	cliDir := t.TempDir()
	writeTree(t, cliDir, c.cliFiles)
	want, helmErr := helmTemplate(t, refDir, cliDir, dir, c)
	tree, err := Load([]string{dir}, nil, Options{})
	switch {
	case helmErr != nil && err == nil:
		t.Fatalf("helm refuses what Load renders: %v\n%s", helmErr, dump(c.files))
	case helmErr != nil:
		if !strings.Contains(err.Error(), helmErr.Error()) {
			t.Fatalf("Load's error %q does not say helm's %q", err, helmErr)
		}
		return
	case err != nil:
		t.Fatalf("Load: %v\n%s", err, dump(c.files))
	}
	var got []string
	for _, tg := range tree.Targets {
		for _, o := range allOf(t, tg.Set) {
			if strings.Contains(filepath.ToSlash(o.Source.File), "charts/app/") {
				u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.Obj)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, canonical(t, u))
			}
		}
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rendered differently from helm template\nLoad:\n%s\nhelm:\n%s\ntree:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), dump(c.files))
	}
}

// helmTemplate is what Helm's install, dry run and client only, renders of the chart.
func helmTemplate(t *testing.T, chartDir, cliDir, treeDir string, c helmCase) ([]string, error) {
	opts := c.cli
	opts.ValueFiles = append([]string(nil), opts.ValueFiles...)
	for i, f := range opts.ValueFiles {
		opts.ValueFiles[i] = filepath.Join(cliDir, f)
	}
	opts.FileValues = append([]string(nil), opts.FileValues...)
	for i, f := range opts.FileValues {
		k, v, _ := strings.Cut(f, "=")
		opts.FileValues[i] = k + "=" + filepath.Join(treeDir, v)
	}
	vals, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		_, msg, _ := strings.Cut(err.Error(), " data: ") // "failed parsing --set data: " + strvals' error
		return nil, errors.New(msg)
	}
	cfg := &action.Configuration{Releases: storage.Init(driver.NewMemory()), KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard},
		Capabilities: chartutil.DefaultCapabilities, Log: func(string, ...interface{}) {}}
	inst := action.NewInstall(cfg)
	inst.DryRun, inst.ClientOnly, inst.Replace, inst.IncludeCRDs = true, true, true, true
	inst.ReleaseName, inst.Namespace = c.name, c.ns
	ch, err := chartloader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := inst.Run(ch, vals)
	if err != nil {
		return nil, err
	}
	text := rel.Manifest
	for _, h := range rel.Hooks {
		text += "\n---\n" + h.Manifest
	}
	var out []string
	for _, doc := range releaseutil.SplitManifests(text) {
		var m map[string]any
		if err := sigsyaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, canonical(t, m))
		}
	}
	sort.Strings(out)
	return out, nil
}

func canonical(t *testing.T, m map[string]any) string {
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(v)
	return string(data)
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	for p, text := range files {
		f := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func dump(files map[string]string) string {
	var keys []string
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "-- %s --\n%s\n", k, files[k])
	}
	return b.String()
}

// chartFiles is a generated chart: its values, a template writing all of them, one
// writing a few through plain expressions, and sometimes a vendored subchart.
func chartFiles(r *rand.Rand) map[string]string {
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"values.yaml": testYAML(randTree(r, 3)),
		"templates/all.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-all
  namespace: {{ .Release.Namespace }}
data:
  values: {{ toJson .Values | quote }}
`,
		"templates/some.yaml": `{{- if .Values.a }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-some
data:
  a: {{ .Values.a | toString | quote }}
  b: {{ .Values.b | toJson | quote }}
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-notes
data:
  service: "{{ .Release.Service }}"
  install: "{{ .Release.IsInstall }}"
`,
		"templates/NOTES.txt": "installed {{ .Release.Name }}\n",
	}
	if r.Intn(2) == 0 {
		files["Chart.yaml"] += "dependencies:\n  - name: sub\n    version: 0.1.0\n    condition: sub.enabled\n"
		files["charts/sub/Chart.yaml"] = "apiVersion: v2\nname: sub\nversion: 0.1.0\n"
		sub := randTree(r, 2)
		sub["enabled"] = true
		files["charts/sub/values.yaml"] = testYAML(sub)
		files["charts/sub/templates/sub.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sub\ndata:\n  values: {{ toJson .Values | quote }}\n"
	}
	return files
}

var keys = []string{"a", "b", "c", "d", "sub", "global"}

// randTree is random values: maps, lists, numbers (large ones print as Helm prints
// float64), strings, booleans, nulls.
func randTree(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for i, n := 0, r.Intn(4); i < n; i++ {
		k := keys[r.Intn(len(keys))]
		if k == "sub" && r.Intn(3) > 0 {
			m[k] = map[string]any{"enabled": r.Intn(4) > 0, "x": randScalar(r)}
			continue
		}
		if depth > 0 && r.Intn(3) == 0 {
			m[k] = randTree(r, depth-1)
			continue
		}
		m[k] = randScalar(r)
	}
	return m
}

func randScalar(r *rand.Rand) any {
	switch r.Intn(7) {
	case 0:
		return r.Intn(10)
	case 1:
		return 1000000 + r.Intn(5)
	case 2:
		return 1.5
	case 3:
		return fmt.Sprintf("s%d", r.Intn(9))
	case 4:
		return r.Intn(2) == 0
	case 5:
		return nil
	}
	return []any{r.Intn(3), "x"}
}

func testYAML(v any) string {
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// setString is a random --set assignment whose keys are the values' keys.
func setString(r *rand.Rand) string {
	path := keys[r.Intn(4)]
	if r.Intn(2) == 0 {
		path += "." + keys[r.Intn(4)]
	}
	switch r.Intn(5) {
	case 0:
		return path + "[" + fmt.Sprint(r.Intn(2)) + "]=" + fmt.Sprint(r.Intn(9))
	case 1:
		return path + "={1,2}"
	case 2:
		return path + "=true"
	case 3:
		return path + "=null"
	}
	return path + "=v" + fmt.Sprint(r.Intn(9))
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// genFluxCase is a HelmRelease of the chart: release name and namespace as
// helm-controller computes them, valuesFiles (which source-controller merges into the
// chart in place of its values), valuesFrom ConfigMaps and Secrets (a key's text merged,
// or one value set at targetPath), and spec.values. Helm's flags say the same: -f for each
// text in order, spec.values last, then --set (--set-string for a quoted value) for each
// targetPath, whose keys (tp.*) nothing else sets.
func genFluxCase(r *rand.Rand, i int) helmCase {
	c := helmCase{files: map[string]string{}, chartFiles: chartFiles(r), cliFiles: map[string]string{}}
	for k, v := range c.chartFiles {
		c.files["charts/app/"+k] = v
	}
	name, ns := fmt.Sprintf("rel%d", i), fmt.Sprintf("ns%d", i%3)
	spec := map[string]any{}
	chartSpec := map[string]any{"chart": "./charts/app", "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system", "namespace": "flux-system"}}
	c.name, c.ns = name, ns
	if r.Intn(3) == 0 {
		spec["targetNamespace"] = "target"
		c.ns, c.name = "target", "target-"+name
	}
	switch r.Intn(4) {
	case 0:
		spec["releaseName"] = "custom"
		c.name = "custom"
	case 1:
		long := strings.Repeat("long-release-name-", 4)
		spec["releaseName"] = long
		c.name = shortenName(long)
	}
	if r.Intn(3) == 0 {
		var vf []any
		var paths []string
		for j, n := 0, 1+r.Intn(2); j < n; j++ {
			p := fmt.Sprintf("values/f%d.yaml", j)
			c.files[p], c.cliFiles[p] = testYAML(randTree(r, 2)), ""
			c.cliFiles[p] = c.files[p]
			vf, paths = append(vf, p), append(paths, p)
		}
		if r.Intn(2) == 0 {
			vf, paths = append(vf, "charts/app/values.yaml"), append(paths, "charts/app/values.yaml")
			c.cliFiles["charts/app/values.yaml"] = c.chartFiles["values.yaml"]
		}
		chartSpec["valuesFiles"] = vf
		merged := mergeCLI(paths, c.cliFiles)
		c.chartFiles = copyFiles(c.chartFiles)
		c.chartFiles["values.yaml"] = testYAML(merged)
	}
	spec["chart"] = map[string]any{"spec": chartSpec}
	genValuesFrom(r, &c, spec, ns)
	if r.Intn(3) > 0 {
		v := randTree(r, 3)
		spec["values"] = v
		c.cliFiles["spec-values.yaml"] = testYAML(v)
		c.cli.ValueFiles = append(c.cli.ValueFiles, "spec-values.yaml")
	}
	c.cli.Values, c.cli.StringValues = append(c.cli.Values, c.sets...), append(c.cli.StringValues, c.stringSets...)
	hr := map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}
	c.files["releases/release.yaml"] = testYAML(hr)
	return c
}

// genValuesFrom adds valuesFrom references and the ConfigMaps and Secrets they name.
func genValuesFrom(r *rand.Rand, c *helmCase, spec map[string]any, ns string) {
	var refs []any
	var objs []string
	for j, n := 0, r.Intn(4); j < n; j++ {
		kind := []string{"ConfigMap", "Secret"}[r.Intn(2)]
		ref := map[string]any{"kind": kind, "name": fmt.Sprintf("v%d", j)}
		key := "values.yaml"
		if r.Intn(2) == 0 {
			key = "custom"
			ref["valuesKey"] = key
		}
		if r.Intn(5) == 0 {
			refs = append(refs, map[string]any{"kind": kind, "name": fmt.Sprintf("missing%d", j), "optional": true})
		}
		text := testYAML(randTree(r, 2))
		if r.Intn(3) == 0 {
			tp := fmt.Sprintf("tp.k%d", j)
			ref["targetPath"] = tp
			text = []string{"5", "'quoted'", `"dq"`, "x", "true", "1000000"}[r.Intn(6)]
			if strings.HasPrefix(text, "'") || strings.HasPrefix(text, `"`) {
				c.stringSets = append(c.stringSets, tp+"="+strings.Trim(text, `'"`))
			} else {
				c.sets = append(c.sets, tp+"="+text)
			}
		} else {
			p := fmt.Sprintf("from%d.yaml", j)
			c.cliFiles[p] = text
			c.cli.ValueFiles = append(c.cli.ValueFiles, p)
		}
		refs = append(refs, ref)
		obj := map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": ref["name"], "namespace": ns}}
		switch {
		case kind == "ConfigMap":
			obj["data"] = map[string]any{key: text}
		case r.Intn(2) == 0:
			obj["stringData"] = map[string]any{key: text}
		default:
			obj["data"] = map[string]any{key: b64(text)}
		}
		objs = append(objs, testYAML(obj))
	}
	if len(refs) > 0 {
		spec["valuesFrom"] = refs
		c.files["releases/values.yaml"] = strings.Join(objs, "---\n")
	}
}

// genArgoCase is an Argo CD Application of the chart: valueFiles (relative to the chart, to
// the root, or of a ref: source), values or valuesObject, parameters and fileParameters;
// Helm's flags: -f for each file, the values last, --set, --set-string, --set-file.
func genArgoCase(r *rand.Rand, i int) helmCase {
	c := helmCase{files: map[string]string{}, chartFiles: chartFiles(r), cliFiles: map[string]string{}}
	for k, v := range c.chartFiles {
		c.files["charts/app/"+k] = v
	}
	c.name, c.ns = fmt.Sprintf("app%d", i), fmt.Sprintf("dest%d", i%2)
	helm := map[string]any{}
	if r.Intn(3) == 0 {
		helm["releaseName"] = "named"
		c.name = "named"
	}
	multi := r.Intn(2) == 0
	c.files["charts/app/values-a.yaml"] = testYAML(randTree(r, 2))
	c.files["charts/app/values-b.yaml"] = testYAML(randTree(r, 2))
	c.files["envs/e.yaml"] = testYAML(randTree(r, 2))
	choices := map[string]string{"values-a.yaml": "charts/app/values-a.yaml", "values-b.yaml": "charts/app/values-b.yaml", "/envs/e.yaml": "envs/e.yaml"}
	if multi {
		choices["$values/envs/e.yaml"] = "envs/e.yaml"
	}
	var vf []any
	for f, p := range choices {
		if r.Intn(2) == 0 {
			vf = append(vf, f)
			c.cliFiles[p] = c.files[p]
			if !containsString(c.cli.ValueFiles, p) {
				c.cli.ValueFiles = append(c.cli.ValueFiles, p)
			}
		}
	}
	if len(vf) > 0 {
		helm["valueFiles"] = vf
	}
	switch r.Intn(3) {
	case 0:
		v := randTree(r, 3)
		helm["values"] = testYAML(v)
		c.cliFiles["extra.yaml"], c.cli.ValueFiles = testYAML(v), append(c.cli.ValueFiles, "extra.yaml")
	case 1:
		v := randTree(r, 3)
		helm["valuesObject"] = v
		c.cliFiles["extra.yaml"], c.cli.ValueFiles = testYAML(v), append(c.cli.ValueFiles, "extra.yaml")
	}
	genParameters(r, &c, helm)
	src := map[string]any{"repoURL": "https://github.com/example/platform.git", "path": "charts/app", "helm": helm}
	spec := map[string]any{"project": "default", "destination": map[string]any{"name": "in-cluster", "namespace": c.ns}}
	if multi {
		spec["sources"] = []any{src, map[string]any{"repoURL": "https://github.com/example/platform", "ref": "values"}}
	} else {
		spec["source"] = src
	}
	app := map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": fmt.Sprintf("app%d", i), "namespace": "argocd"}, "spec": spec}
	c.files["apps/app.yaml"] = testYAML(app)
	return c
}

func genParameters(r *rand.Rand, c *helmCase, helm map[string]any) {
	var params []any
	seen := map[string]bool{}
	for j, n := 0, r.Intn(4); j < n; j++ {
		s := setString(r)
		name, value, _ := strings.Cut(s, "=")
		if seen[name] {
			continue
		}
		seen[name] = true
		p := map[string]any{"name": name, "value": value}
		if r.Intn(3) == 0 {
			p["forceString"] = true
			c.cli.StringValues = append(c.cli.StringValues, name+"="+argoSetValue(value))
		} else {
			c.cli.Values = append(c.cli.Values, name+"="+argoSetValue(value))
		}
		params = append(params, p)
	}
	if len(params) > 0 {
		helm["parameters"] = params
	}
	if r.Intn(4) == 0 {
		c.files["charts/app/files/f.txt"] = "from a file, with: a colon"
		helm["fileParameters"] = []any{map[string]any{"name": "c", "path": "files/f.txt"}}
		c.cli.FileValues = []string{"c=charts/app/files/f.txt"}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mergeCLI is Helm's own merge of values files (-f), in order.
func mergeCLI(paths []string, files map[string]string) map[string]any {
	dir, err := os.MkdirTemp("", "helmvals")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	var opts helmvalues.Options
	for _, p := range paths {
		f := filepath.Join(dir, strings.ReplaceAll(p, "/", "_"))
		if err := os.WriteFile(f, []byte(files[p]), 0o644); err != nil {
			panic(err)
		}
		opts.ValueFiles = append(opts.ValueFiles, f)
	}
	m, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		panic(err)
	}
	return m
}

func copyFiles(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
