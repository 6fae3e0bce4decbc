package gitops

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

const applicationLabel = "Application (argoproj.io)"

// argoHelm renders an Argo CD Application whose one source is a chart of this repository
// (spec.source.path holding Chart.yaml); it reports whether it took e. The chart sources
// of a multi-source Application are rendered by multiSource, with the refs they may name.
func (l *loader) argoHelm(e *manifest.Object, u map[string]any, out *output, t *Tree) bool {
	src, _, _ := unstructured.NestedMap(u, "spec", "source")
	p, _ := src["path"].(string)
	if src == nil || src["chart"] != nil || p == "" {
		return false
	}
	dir, ok := l.resolveDir(p)
	if !ok || !l.charts[dir] {
		return false
	}
	l.argoChartSource(e, u, src, "spec.source", dir, nil, out, t)
	return true
}

// argoChartSource renders one chart source of an Application as Argo CD's repo server
// templates it: release name helm.releaseName or the Application's name, namespace
// helm.namespace or the destination's, values: the chart's, valueFiles in order, values or
// valuesObject, then parameters (--set, --set-string when forceString) and fileParameters
// (--set-file), as Helm merges its flags.
func (l *loader) argoChartSource(e *manifest.Object, u, src map[string]any, field, dir string, refs map[string]map[string]any, out *output, t *Tree) {
	helm, _ := src["helm"].(map[string]any)
	inst := &install{entry: e, dir: dir, vals: &values{user: map[string]any{}}}
	inst.rel.name, _ = helm["releaseName"].(string)
	if inst.rel.name == "" {
		inst.rel.name = e.Name
	}
	inst.rel.namespace, _ = helm["namespace"].(string)
	if inst.rel.namespace == "" {
		inst.rel.namespace, _, _ = unstructured.NestedString(u, "spec", "destination", "namespace")
	}
	env := argoEnv(e, u, src, inst.rel.namespace)
	fail := func(f, format string, args ...any) {
		out.errs = append(out.errs, &manifest.DecodeError{File: e.Source.File, Line: e.Line(f), Kind: e.Kind,
			Namespace: e.Namespace, Name: e.Name, Field: f, Msg: fmt.Sprintf(format, args...)})
	}
	skip, ok := l.argoValues(e, inst, helm, src, field, dir, refs, env, fail)
	if skip != "" {
		t.NotRendered[applicationLabel+" "+skip]++
	}
	if !ok || skip != "" {
		return
	}
	l.renderInstall(inst, out, t)
}

// argoValues composes an Argo CD chart source's values into inst; ok is false after an
// error (given to fail), skip says why the source is not rendered.
func (l *loader) argoValues(e *manifest.Object, inst *install, helm, src map[string]any, field, dir string,
	refs map[string]map[string]any, env *strings.Replacer, fail func(string, string, ...any)) (skip string, ok bool) {
	file := l.rel(l.abs(e.Source.File))
	files, _, _ := unstructured.NestedStringSlice(helm, "valueFiles")
	ignoreMissing, _ := helm["ignoreMissingValueFiles"].(bool)
	seen := map[string]bool{}
	for i, raw := range files {
		f := field + ".helm.valueFiles[" + strconv.Itoa(i) + "]"
		paths, skip, err := l.argoValueFiles(env.Replace(raw), dir, src, refs, ignoreMissing)
		if skip != "" {
			return skip, true
		}
		if err != nil {
			fail(f, "%v", err)
			return "", false
		}
		for _, p := range paths {
			if seen[p] {
				continue
			}
			seen[p] = true
			data, err := fileio.ReadFile(p, manifest.DefaultMaxFileBytes)
			if err != nil {
				fail(f, "%v", err)
				return "", false
			}
			l.helmState().readValuesFile(p)
			v, err := readValues(data)
			if err != nil {
				fail(f, "%s", errValues(l.rel(p), err))
				return "", false
			}
			inst.vals.user = mergeMaps(inst.vals.user, v)
			inst.vals.layers = append(inst.vals.layers, yamlLayer(l.rel(p), 0, data))
		}
	}
	text, isObject, err := valuesYAML(helm)
	if err == nil && len(text) > 0 {
		var v map[string]any
		if v, err = readValues(text); err == nil {
			inst.vals.user = mergeMaps(inst.vals.user, v)
			if isObject {
				inst.vals.layers = append(inst.vals.layers, fieldLayer(file, v, e.Line, field+".helm.valuesObject"))
			} else {
				inst.vals.layers = append(inst.vals.layers, yamlLayer(file, textLine(e.Line(field+".helm.values"), string(text)), text))
			}
		}
	}
	if err != nil {
		fail(field+".helm.values", "%s", errValues("the Application's values", err))
		return "", false
	}
	return "", l.argoParameters(e, inst, helm, field, dir, src, refs, env, fail)
}

// argoParameters applies parameters and fileParameters, as Argo CD passes them to Helm:
// one --set (or --set-string) per name, the last value of a name kept.
func (l *loader) argoParameters(e *manifest.Object, inst *install, helm map[string]any, field, dir string, src map[string]any,
	refs map[string]map[string]any, env *strings.Replacer, fail func(string, string, ...any)) bool {
	file := l.rel(l.abs(e.Source.File))
	params, _, _ := unstructured.NestedSlice(helm, "parameters")
	type param struct {
		value   string
		str     bool
		line    int
		ordinal int
	}
	byName := map[string]*param{}
	var names []string
	for i, p := range params {
		m, _ := p.(map[string]any)
		name, _ := m["name"].(string)
		value, _ := m["value"].(string)
		str, _ := m["forceString"].(bool)
		if _, ok := byName[name]; !ok {
			names = append(names, name)
		}
		byName[name] = &param{env.Replace(value), str, e.Line(field + ".helm.parameters[" + strconv.Itoa(i) + "]"), len(names)}
	}
	for _, asString := range []bool{false, true} { // Helm applies --set, then --set-string
		for _, name := range names {
			p := byName[name]
			if p.str != asString {
				continue
			}
			set := strvals.ParseInto
			if p.str {
				set = strvals.ParseIntoString
			}
			if err := set(name+"="+argoSetValue(p.value), inst.vals.user); err != nil {
				fail(field+".helm.parameters", "parameter %q: %v", name, err)
				return false
			}
			inst.vals.layers = append(inst.vals.layers, setLayer(name, place{file, p.line}))
		}
	}
	fps, _, _ := unstructured.NestedSlice(helm, "fileParameters")
	for i, p := range fps {
		m, _ := p.(map[string]any)
		name, _ := m["name"].(string)
		path, _ := m["path"].(string)
		f := field + ".helm.fileParameters[" + strconv.Itoa(i) + "]"
		paths, skip, err := l.argoValueFiles(env.Replace(path), dir, src, refs, false)
		if err == nil && (skip != "" || len(paths) != 1) {
			err = fmt.Errorf("%q is not one file of this repository", path)
		}
		if err != nil {
			fail(f, "%v", err)
			return false
		}
		read := func(rs []rune) (any, error) {
			data, err := fileio.ReadFile(paths[0], manifest.DefaultMaxFileBytes)
			return string(data), err
		}
		if err := strvals.ParseIntoFile(name+"="+paths[0], inst.vals.user, read); err != nil {
			fail(f, "%v", err)
			return false
		}
		inst.vals.layers = append(inst.vals.layers, setLayer(name, place{file, e.Line(f)}))
	}
	return true
}

// argoValueFiles resolves a valueFiles entry: relative to the chart, or to the repository's
// root when absolute, or "$ref/..." to the root of the ref: source it names (this
// repository's when that source's repoURL is this source's); a glob lists its matches in
// order. A URL, or a ref: source of another repository, skips the source.
func (l *loader) argoValueFiles(raw, dir string, src map[string]any, refs map[string]map[string]any, ignoreMissing bool) ([]string, string, error) {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		return nil, "with values files from a URL", nil
	}
	base, p := dir, raw
	if strings.HasPrefix(raw, "$") {
		name, rest, _ := strings.Cut(raw[1:], "/")
		ref, ok := refs[name]
		if !ok {
			return nil, "", fmt.Errorf("%q names no ref: source %q of the Application", raw, name)
		}
		if normalRepo(ref["repoURL"]) != normalRepo(src["repoURL"]) {
			return nil, "with values files of another repository", nil
		}
		base, p = l.root[0], rest
	} else if filepath.IsAbs(raw) {
		base = l.root[0]
	}
	abs := filepath.Join(base, p)
	if r, err := filepath.Rel(l.root[0], abs); err == nil && strings.HasPrefix(r, "..") && !strings.HasPrefix(abs, dir) {
		return nil, "", fmt.Errorf("%q is outside the repository", raw)
	}
	if strings.ContainsAny(p, "*?[") {
		matches, err := filepath.Glob(abs)
		if err != nil {
			return nil, "", err
		}
		sort.Strings(matches)
		return matches, "", nil
	}
	if !fileExists(abs) {
		if ignoreMissing {
			return nil, "", nil
		}
		return nil, "", fmt.Errorf("no values file %q in this repository (ignoreMissingValueFiles is not set)", raw)
	}
	return []string{abs}, "", nil
}

// normalRepo compares repository URLs as Argo CD does, loosely: case, a trailing .git or /.
func normalRepo(v any) string {
	s, _ := v.(string)
	return strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(s), "/"), ".git")
}

// argoEnv substitutes the build environment's variables Argo CD sets that the tree says.
func argoEnv(e *manifest.Object, u, src map[string]any, namespace string) *strings.Replacer {
	project, _, _ := unstructured.NestedString(u, "spec", "project")
	repo, _ := src["repoURL"].(string)
	path, _ := src["path"].(string)
	rev, _ := src["targetRevision"].(string)
	var pairs []string
	for k, v := range map[string]string{"ARGOCD_APP_NAME": e.Name, "ARGOCD_APP_NAMESPACE": namespace,
		"ARGOCD_APP_PROJECT_NAME": project, "ARGOCD_APP_SOURCE_REPO_URL": repo, "ARGOCD_APP_SOURCE_PATH": path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": rev} {
		pairs = append(pairs, "${"+k+"}", v, "$"+k, v)
	}
	return strings.NewReplacer(pairs...)
}
