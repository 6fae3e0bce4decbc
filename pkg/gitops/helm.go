package gitops

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// helmState is what a load keeps of the charts it renders. The render workers share the
// chart cache and the values files read, under mu; the rest is the loader goroutine's.
type helmState struct {
	mu       sync.Mutex
	files    map[string]*chartRead // a chart's files, by absolute directory
	values   map[string]bool       // values files a release read, absolute
	rendered map[string]bool       // charts some release installs
	pool     *renderPool
	started  map[*manifest.Object]*startedRelease // HelmReleases started ahead, by where written
}

// chartRead is a chart's files and the chart Helm loads from them, read and loaded once
// for every release that installs it (each render takes a clone: cloneChart).
type chartRead struct {
	once  sync.Once
	files []*chartloader.BufferedFile
	chart *chart.Chart
	err   error
}

func (l *loader) helmState() *helmState {
	if l.helm == nil {
		l.helm = &helmState{files: map[string]*chartRead{}, rendered: map[string]bool{}, values: map[string]bool{}}
	}
	return l.helm
}

// readValuesFile records a values file a release read (absolute).
func (h *helmState) readValuesFile(abs string) {
	h.mu.Lock()
	h.values[abs] = true
	h.mu.Unlock()
}

// chartFiles reads and loads a chart the first time a release asks for it: its files,
// and a clone of the chart to render.
func (h *helmState) chartFiles(dir string, max int64) ([]*chartloader.BufferedFile, *chart.Chart, error) {
	h.mu.Lock()
	cf, ok := h.files[dir]
	if !ok {
		cf = &chartRead{}
		h.files[dir] = cf
	}
	h.mu.Unlock()
	cf.once.Do(func() {
		c, err := loadChart(dir, max)
		if err != nil {
			cf.err = err
			return
		}
		cf.files = make([]*chartloader.BufferedFile, 0, len(c.Raw))
		for _, f := range c.Raw {
			cf.files = append(cf.files, &chartloader.BufferedFile{Name: f.Name, Data: f.Data})
		}
		cf.chart = c
	})
	if cf.err != nil {
		return nil, nil, cf.err
	}
	return cf.files, cloneChart(cf.chart), nil
}

// valuesLabel counts the values files a release read, outside its chart.
const valuesLabel = "Helm values file (read by a release)"

// valuesRead are the documents that are no Kubernetes object less the values files a
// release read: those are counted as what they are.
func (l *loader) valuesRead(t *Tree, srcs []manifest.Source) []manifest.Source {
	if l.helm == nil || len(l.helm.values) == 0 {
		return srcs
	}
	var out []manifest.Source
	for _, s := range srcs {
		if l.helm.values[l.abs(s.File)] {
			t.Recognised[valuesLabel]++
			continue
		}
		out = append(out, s)
	}
	return out
}

// anyRelease reports whether the tree holds a HelmRelease.
func (l *loader) anyRelease() bool {
	for i := range l.raw.Objects {
		if isHelmRelease(&l.raw.Objects[i]) {
			return true
		}
	}
	return false
}

// plainReleases renders the HelmReleases of a tree without entry points into its one
// target: applied as the tree is, each installs its chart there.
func (l *loader) plainReleases(t *Tree) error {
	if l.rendered == nil {
		l.rendered = map[*manifest.Object]*output{}
	}
	set := t.Targets[0].Set
	objs, err := set.All()
	if err != nil {
		return err
	}
	var calls []releaseCall
	for i := range l.raw.Objects {
		if e := &l.raw.Objects[i]; isHelmRelease(e) {
			calls = append(calls, releaseCall{e, e})
		}
	}
	var ahead []releaseCall
	for _, c := range calls {
		if _, done := l.rendered[c.e]; !done {
			ahead = append(ahead, c)
		}
	}
	l.startReleases(ahead, l.raw.Objects)
	var errs []error
	for _, c := range calls {
		out := l.renderHelmRelease(c.e, c.as, l.raw.Objects, t)
		errs = append(errs, out.errs...)
		objs = append(objs, l.walkRendered(out)...)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	got, err := newSet(objs)
	if err != nil {
		return err
	}
	got.NotObjects, got.LeftOut, got.Excluded, got.ExcludePatterns = set.NotObjects, set.LeftOut, set.Excluded, set.ExcludePatterns
	t.Targets[0].Set = got
	return nil
}

// walkRendered is what an output renders, and what the entries it nests render.
func (l *loader) walkRendered(out *output) []manifest.Object {
	objs := append([]manifest.Object(nil), out.objects...)
	for _, n := range out.nested {
		if o := l.rendered[n]; o != nil {
			objs = append(objs, l.walkRendered(o)...)
		}
	}
	return objs
}

// unrenderedCharts are the charts of the tree no release installed, as walked.
func (l *loader) unrenderedCharts() []string {
	var out []string
	for _, d := range sortedDirs(l.charts) {
		if l.helm == nil || !l.helm.rendered[d] {
			out = append(out, filepath.ToSlash(l.rel(d)))
		}
	}
	return out
}

func sortedDirs(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for d := range m {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// install is one release of a chart of this tree: what an entry installs, and how.
type install struct {
	entry *manifest.Object // the HelmRelease or Application, where it is written
	dir   string           // the chart's directory, absolute
	rel   release
	vals  *values
}

const helmReleaseLabel = "HelmRelease (helm.toolkit.fluxcd.io)"

// releaseNotRendered counts a HelmRelease that is not rendered, and says where.
func (l *loader) releaseNotRendered(e *manifest.Object, skip notRendered, t *Tree) {
	t.NotRendered[helmReleaseLabel+" "+skip.why]++
	el := Elsewhere{Object: *e, Source: skip.source.String(), Kind: skip.source.kind, Field: skip.field}
	if skip.source.kind == "" {
		el.Why = "a HelmRelease " + skip.why
	}
	t.Elsewhere = append(t.Elsewhere, el)
}

// renderInstall renders an install into out, and what it renders that applies more
// (Flux Kustomizations, HelmReleases, Argo CD Applications) in turn.
func (l *loader) renderInstall(inst *install, out *output, t *Tree) {
	objs, _, err := l.renderPool().wait(l.startRender(inst, nil))
	if err != nil {
		out.errs = append(out.errs, err)
		return
	}
	l.installed(inst, objs, out, t)
}

// installed records what an install rendered into out, and renders what it renders that
// applies more in turn.
func (l *loader) installed(inst *install, objs []manifest.Object, out *output, t *Tree) {
	l.helmState().rendered[inst.dir] = true
	out.objects = append(out.objects, objs...)
	l.nestRendered(objs, out, t)
}

// nestRendered renders the entries a chart rendered: they are no object of the tree, so
// each renders from its own copy.
func (l *loader) nestRendered(objs []manifest.Object, out *output, t *Tree) {
	for i := range objs {
		o := &objs[i]
		if !isFluxKustomization(o) && !isArgoApplication(o) && !isHelmRelease(o) {
			continue
		}
		n := new(manifest.Object)
		*n = *o
		out.nested = append(out.nested, n)
		var got *output
		if isHelmRelease(n) {
			got = l.renderHelmRelease(n, n, objs, t)
		} else {
			got = l.renderEntry(n, t)
		}
		out.errs = append(out.errs, got.errs...)
	}
}

// helmReleaseInstall reads a HelmRelease: its chart (spec.chart.spec from a GitRepository
// that is this repository, or spec.chartRef), release name and namespace as
// helm-controller computes them; its values are helmReleaseValues'.
func (l *loader) helmReleaseInstall(e, as *manifest.Object) (*install, notRendered, error) {
	u := content(as)
	if ref, ok, _ := unstructured.NestedMap(u, "spec", "chartRef"); ok {
		// OCIRepository, HelmChart, ExternalArtifact: an artifact, not this repository
		s := sourceRef{namespace: as.Namespace}
		s.kind, _ = ref["kind"].(string)
		s.name, _ = ref["name"].(string)
		if ns, _ := ref["namespace"].(string); ns != "" {
			s.namespace = ns
		}
		return nil, notRendered{"from " + s.kind, s, "spec.chartRef"}, nil
	}
	spec, _, _ := unstructured.NestedMap(u, "spec", "chart", "spec")
	src := sourceRef{namespace: as.Namespace}
	src.kind, _, _ = unstructured.NestedString(spec, "sourceRef", "kind")
	src.name, _, _ = unstructured.NestedString(spec, "sourceRef", "name")
	if ns, _, _ := unstructured.NestedString(spec, "sourceRef", "namespace"); ns != "" {
		src.namespace = ns
	}
	if !l.ownRepository(src) {
		return nil, notRendered{"from " + src.kind, src, "spec.chart.spec.sourceRef"}, nil
	}
	if _, ok, _ := unstructured.NestedFieldNoCopy(u, "spec", "postRenderers"); ok {
		// Kustomize patches over the output: not applied here, so not judged as if absent.
		return nil, notRendered{why: "with postRenderers", field: "spec.postRenderers"}, nil
	}
	fail := func(field, format string, args ...any) error {
		return &manifest.DecodeError{File: e.Source.File, Line: e.Line(field), Kind: e.Kind, Namespace: e.Namespace,
			Name: e.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	chartPath, _, _ := unstructured.NestedString(spec, "chart")
	dir, ok := l.resolveDir(chartPath)
	if !ok || chartPath == "" {
		return nil, notRendered{}, fail("spec.chart.spec.chart", "%q is not a directory of this repository", chartPath)
	}
	if !l.charts[dir] {
		return nil, notRendered{}, fail("spec.chart.spec.chart", "%q holds no Chart.yaml: not a Helm chart", chartPath)
	}
	inst := &install{entry: e, dir: dir, vals: &values{}}
	inst.rel.namespace, _, _ = unstructured.NestedString(u, "spec", "targetNamespace")
	inst.rel.name, _, _ = unstructured.NestedString(u, "spec", "releaseName")
	if inst.rel.name == "" {
		inst.rel.name = as.Name
		if inst.rel.namespace != "" {
			inst.rel.name = inst.rel.namespace + "-" + as.Name
		}
	}
	inst.rel.name = shortenName(inst.rel.name)
	if inst.rel.namespace == "" {
		inst.rel.namespace = as.Namespace
	}
	return inst, notRendered{}, nil
}

// helmReleaseValues composes a HelmRelease's values into inst, in helm-controller's order:
// the chart's values (replaced by valuesFiles when given), spec.valuesFrom in order,
// spec.values. It runs on a render worker: values files are most of a release's reading.
func (l *loader) helmReleaseValues(inst *install, as *manifest.Object, siblings []manifest.Object) (notRendered, error) {
	e, u := inst.entry, content(as)
	fail := func(field, format string, args ...any) error {
		return &manifest.DecodeError{File: e.Source.File, Line: e.Line(field), Kind: e.Kind, Namespace: e.Namespace,
			Name: e.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	spec, _, _ := unstructured.NestedMap(u, "spec", "chart", "spec")
	files, _, _ := unstructured.NestedStringSlice(spec, "valuesFiles")
	ignoreMissing, _, _ := unstructured.NestedBool(spec, "ignoreMissingValuesFiles")
	if err := l.fluxValuesFiles(inst, files, ignoreMissing, fail); err != nil {
		return notRendered{}, err
	}
	if skip, err := l.valuesFrom(inst, as, u, siblings, fail); skip != "" || err != nil {
		return notRendered{why: skip, field: "spec.valuesFrom"}, err
	}
	return notRendered{}, nil
}

// notRendered says why a HelmRelease is not rendered: its chart's source, or why.
type notRendered struct {
	why    string
	source sourceRef // kind "" when the source is this repository
	field  string
}

// shortenName is helm-controller's release name past 53 characters: cut, with a hash.
func shortenName(name string) string {
	if len(name) <= 53 {
		return name
	}
	return name[:40] + "-" + fmt.Sprintf("%x", sha256.Sum256([]byte(name)))[:12]
}

// fluxValuesFiles are spec.chart.spec.valuesFiles: source-controller merges them, relative
// to the repository's root, into the values the chart carries, in place of its own.
func (l *loader) fluxValuesFiles(inst *install, files []string, ignoreMissing bool, fail func(string, string, ...any) error) error {
	if len(files) == 0 {
		return nil
	}
	inst.vals.defaults = map[string]any{}
	for i, f := range files {
		field := "spec.chart.spec.valuesFiles[" + strconv.Itoa(i) + "]"
		abs, ok := l.repoFile(f)
		if !ok {
			if ignoreMissing {
				continue
			}
			return fail(field, "no values file %q in this repository", f)
		}
		data, err := fileio.ReadFile(abs, manifest.DefaultMaxFileBytes)
		if err != nil {
			return fail(field, "%v", err)
		}
		l.helmState().readValuesFile(abs)
		v, err := readValues(data)
		if err != nil {
			return fail(field, "%s", errValues(l.rel(abs), err))
		}
		inst.vals.defaults = mergeMaps(inst.vals.defaults, v)
		inst.vals.defaultLayers = append(inst.vals.defaultLayers, yamlLayer(l.rel(abs), 0, data))
	}
	return nil
}

// repoFile finds a file by its path in the repository (as resolveDir finds directories).
func (l *loader) repoFile(p string) (string, bool) {
	for _, r := range l.root {
		f := filepath.Join(r, p)
		if rel, err := filepath.Rel(r, f); err != nil || strings.HasPrefix(rel, "..") {
			continue // out of the repository
		}
		if fileExists(f) {
			return f, true
		}
	}
	return "", false
}
