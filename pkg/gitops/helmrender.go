package gitops

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/ignore"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Bounds of a chart and of one render of it. Helm's engine takes no context and cannot be
// stopped: a render past its time or memory bound is given up (an error, so the command
// ends), and its goroutine is left to the process's exit.
const (
	// DefaultMaxChartBytes bounds the files of one chart (its subcharts included).
	DefaultMaxChartBytes = 32 << 20
	// maxChartFileBytes bounds each file of a chart, as Helm bounds a chart's files.
	maxChartFileBytes = 8 << 20
	// DefaultRenderTimeout bounds one render: a chart of this world renders in milliseconds.
	DefaultRenderTimeout = 30 * time.Second
	// DefaultMaxRenderBytes bounds what one render writes.
	DefaultMaxRenderBytes = 64 << 20
	// DefaultMaxRenderHeap bounds what one render holds: the growth of the heap while it
	// runs, sampled.
	DefaultMaxRenderHeap = 2 * DefaultMaxRenderBytes
)

// ChartBounds are the bounds of charts' reads and renders; zero fields take the defaults.
// Each bound is its own: a small bound on what a render writes must not make the heap's,
// which any render's working memory crosses, small too.
type ChartBounds struct {
	MaxChartBytes  int64
	MaxRenderBytes int64
	MaxRenderHeap  int64
	RenderTimeout  time.Duration
}

func (b ChartBounds) withDefaults() ChartBounds {
	if b.MaxChartBytes <= 0 {
		b.MaxChartBytes = DefaultMaxChartBytes
	}
	if b.MaxRenderBytes <= 0 {
		b.MaxRenderBytes = DefaultMaxRenderBytes
	}
	if b.MaxRenderHeap <= 0 {
		b.MaxRenderHeap = DefaultMaxRenderHeap
	}
	if b.RenderTimeout <= 0 {
		b.RenderTimeout = DefaultRenderTimeout
	}
	return b
}

// loadChart reads a chart directory as Helm's directory loader does (.helmignore and its
// defaults honoured, vendored subcharts in charts/, directories or archives), every file
// through a bounded read and the whole chart bounded.
func loadChart(dir string, max int64) (*chart.Chart, error) {
	rules := ignore.Empty()
	if _, err := os.Stat(filepath.Join(dir, ignore.HelmIgnore)); err == nil {
		data, err := fileio.ReadFile(filepath.Join(dir, ignore.HelmIgnore), 1<<20)
		if err != nil {
			return nil, err
		}
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ignore.HelmIgnore), err)
		}
	}
	rules.AddDefaults()
	var files []*chartloader.BufferedFile
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		fi, err := os.Stat(p) // a symlink is read as what it points at, as Helm reads it
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if rules.Ignore(rel, fi) || d.Type()&fs.ModeSymlink != 0 {
				return filepath.SkipDir // a linked directory is not walked: no loops
			}
			return nil
		}
		if rules.Ignore(rel, fi) {
			return nil
		}
		data, err := fileio.ReadFile(p, maxChartFileBytes)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > max {
			return fmt.Errorf("the chart's files are past %s (the bound of one chart)", fileio.Size(max))
		}
		files = append(files, &chartloader.BufferedFile{Name: rel, Data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c, err := chartloader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("not a chart Helm can load: %w", err)
	}
	return c, nil
}

// cloneChart is a chart a render may change as Helm's renders change one (which
// subcharts are enabled, their aliases and import-values in Chart.yaml's dependencies,
// the values imported into each chart), sharing with c only what no render writes: its
// files, templates and schema. Loading once and cloning spares every release after the
// first the parse of Chart.yaml and values.yaml, subcharts and archives included.
func cloneChart(c *chart.Chart) *chart.Chart {
	cp := *c
	if c.Metadata != nil {
		m := *c.Metadata
		m.Dependencies = make([]*chart.Dependency, len(c.Metadata.Dependencies))
		for i, d := range c.Metadata.Dependencies {
			if d != nil {
				dc := *d
				dc.ImportValues = append([]interface{}(nil), d.ImportValues...)
				d = &dc
			}
			m.Dependencies[i] = d
		}
		if c.Metadata.Dependencies == nil {
			m.Dependencies = nil
		}
		cp.Metadata = &m
	}
	subs := make([]*chart.Chart, 0, len(c.Dependencies()))
	for _, d := range c.Dependencies() {
		subs = append(subs, cloneChart(d))
	}
	cp.SetDependencies(subs...)
	return &cp
}

// missingDependencies names the dependencies of Chart.yaml not vendored in charts/, as
// `helm template` refuses them, and those of its subcharts, with the chart that names each.
func missingDependencies(c *chart.Chart) []string {
	var missing []string
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
		missing = append(missing, missingDependencies(d)...)
	}
	if c.Metadata == nil {
		return missing
	}
	for _, r := range c.Metadata.Dependencies {
		if r != nil && !have[r.Name] {
			where := r.Repository
			if where == "" {
				where = "no repository"
			}
			missing = append(missing, fmt.Sprintf("%s needs %s %s (%s), not in its charts/ directory", c.Name(), r.Name, r.Version, where))
		}
	}
	return missing
}

// renderedDoc is one document a render wrote: the template that wrote it (as Helm names
// it, "chart/templates/x.yaml"), its place among that template's documents, its text.
type renderedDoc struct {
	template string
	index    int
	text     string
}

// release is what a render takes besides the chart: the release's name, namespace and
// values, the values already merged (Helm coalesces the chart's defaults).
type release struct {
	name, namespace string
	vals            map[string]any
}

// renderChart renders a chart as `helm template` does (client only: no lookup, no DNS,
// the capabilities of chartCapabilities), CRDs of crds/ included (Flux installs them,
// Argo CD passes --include-crds), NOTES.txt left out.
func renderChart(c *chart.Chart, rel release, b ChartBounds, g *renderGuard) ([]renderedDoc, error) {
	caps := chartCapabilities
	if c.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(c.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	// Helm words what it makes of values it cannot coalesce (a table over a scalar) through
	// the standard logger: kept off the tools' output, which says what they judge.
	defer silenceHelm()()
	if err := chartutil.ProcessDependenciesWithMerge(c, rel.vals); err != nil {
		return nil, err
	}
	opts := chartutil.ReleaseOptions{Name: rel.name, Namespace: rel.namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(c, rel.vals, opts, caps)
	if err != nil {
		return nil, err
	}
	files, err := renderBounded(c, top, b, g)
	if err != nil {
		return nil, shortError(err)
	}
	var docs []renderedDoc
	for _, crd := range c.CRDObjects() {
		docs = append(docs, split(crd.Filename, string(crd.File.Data))...)
	}
	names := make([]string, 0, len(files))
	for k := range files {
		if !strings.HasSuffix(k, "NOTES.txt") {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		docs = append(docs, split(k, files[k])...)
	}
	return docs, nil
}

// split is a template's output as Helm splits it into documents, empty ones left out.
func split(name, text string) []renderedDoc {
	var out []renderedDoc
	for i, d := range splitManifests(text) {
		if strings.TrimSpace(d) != "" {
			out = append(out, renderedDoc{template: name, index: i, text: d})
		}
	}
	return out
}

// shortError bounds a render's error: Helm's error through nested includes repeats each
// level, a thousand of them for a recursion; its first and last parts say what matters.
func shortError(err error) error {
	msg := err.Error()
	const head, tail = 300, 300
	if len(msg) <= head+tail+100 {
		return err
	}
	return fmt.Errorf("%s … (%s left out) … %s", msg[:head], fileio.Size(int64(len(msg)-head-tail)), msg[len(msg)-tail:])
}

// errRenderBound is a render given up at a bound.
var errRenderBound = errors.New("render given up")

// renderBounded runs Helm's engine, giving up when it runs past the time bound or the
// heap grows past MaxRenderHeap while it runs (sampled every 10ms, by the guard of the
// renders running at once), and refusing output past MaxRenderBytes.
func renderBounded(c *chart.Chart, vals chartutil.Values, b ChartBounds, g *renderGuard) (map[string]string, error) {
	type result struct {
		files map[string]string
		err   error
	}
	done := make(chan result, 1)
	meter := g.enter()
	// A render given up leaves the guard at once: Helm's engine cannot be stopped, and
	// what it holds after is the process's exit's to take back, as it was before renders
	// ran at once.
	defer g.leave(meter)
	go func() {
		files, err := engine.Engine{}.Render(c, vals) // no client: lookup returns nothing; DNS off
		done <- result{files, err}
	}()
	deadline := time.NewTimer(b.RenderTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			if r.err != nil {
				return nil, r.err
			}
			var n int64
			for _, v := range r.files {
				n += int64(len(v))
			}
			if n > b.MaxRenderBytes {
				return nil, fmt.Errorf("%w: it wrote %s, past the bound of %s", errRenderBound, fileio.Size(n), fileio.Size(b.MaxRenderBytes))
			}
			return r.files, nil
		case <-deadline.C:
			return nil, fmt.Errorf("%w: it ran past %s", errRenderBound, b.RenderTimeout)
		case <-tick.C:
			if err := meter.over(b.MaxRenderHeap); err != nil {
				return nil, err
			}
		}
	}
}

// templateFile is the file of the tree a rendered template came from: Helm names it from
// the chart's name ("app/templates/x.yaml", "app/charts/db/templates/y.yaml").
func templateFile(chartDir, name string) string {
	_, rest, _ := strings.Cut(name, "/")
	return filepath.Join(chartDir, filepath.FromSlash(rest))
}
