package gitops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	chartloader "helm.sh/helm/v3/pkg/chart/loader"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// renderRelease renders one install: the chart loaded (read and loaded once per load),
// Flux's valuesFiles in place of its values, its dependencies vendored, and each rendered
// document decoded as a manifest placed at its template.
func (l *loader) renderRelease(inst *install) ([]manifest.Object, error) {
	h := l.helmState()
	who := fmt.Sprintf("%s %q", inst.entry.Kind, qualifiedName(inst.entry))
	chartRel := filepath.ToSlash(l.rel(inst.dir))
	files, c, err := h.chartFiles(inst.dir, l.opts.Charts.withDefaults().MaxChartBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: chart %s: %w", who, chartRel, err)
	}
	if missing := missingDependencies(c); len(missing) > 0 {
		return nil, fmt.Errorf("%s: chart %s: dependencies not vendored: %s (vendor them with helm dependency build)",
			who, chartRel, strings.Join(missing, "; "))
	}
	if inst.vals.defaults != nil {
		c.Values = inst.vals.defaults
	} else {
		inst.vals.defaultLayers = l.chartValuesLayers(inst.dir, files)
	}
	inst.rel.vals = inst.vals.user
	docs, err := renderChart(c, inst.rel, l.opts.Charts.withDefaults(), h.pool.guard)
	if err != nil {
		return nil, fmt.Errorf("%s: chart %s: %w", who, chartRel, err)
	}
	return l.decodeChartDocs(inst, docs, files)
}

// chartValuesLayers is where the chart's own values.yaml writes each key.
func (l *loader) chartValuesLayers(dir string, files []*chartloader.BufferedFile) []valuesLayer {
	for _, f := range files {
		if f.Name == "values.yaml" {
			return []valuesLayer{yamlLayer(l.rel(filepath.Join(dir, "values.yaml")), 0, f.Data)}
		}
	}
	return nil
}

// decodeChartDocs decodes the documents a render wrote, each placed at the template that
// wrote it: its fields at the template's lines where the template's layout says them, and
// a field a template sets from a plain {{ .Values.x }} at the line of the values source
// that set x last.
func (l *loader) decodeChartDocs(inst *install, docs []renderedDoc, files []*chartloader.BufferedFile) ([]manifest.Object, error) {
	templates := map[string]string{}
	for _, f := range files {
		templates[f.Name] = string(f.Data)
	}
	maps := map[string]*templateMap{}
	rels := make([]string, len(docs))
	for i, d := range docs {
		rels[i] = l.rel(templateFile(inst.dir, d.template))
		if _, ok := maps[d.template]; !ok {
			_, name, _ := strings.Cut(d.template, "/")
			maps[d.template] = mapTemplate(templates[filepath.ToSlash(name)], countDocs(docs, d.template))
		}
	}
	byDoc, whole := decodeDocs(docs, l.tolerate)
	ok := whole == nil
	var errs []error
	for i, d := range docs {
		if !ok { // some document does not decode: each one alone, to say which and where
			set, err := manifest.LoadFiles([]manifest.File{{Name: rels[i], Data: []byte(d.text)}},
				manifest.Options{AllowDuplicates: true, Tolerate: l.tolerate})
			if err != nil {
				errs = append(errs, renderedError(err, inst, d, maps[d.template]))
				continue
			}
			all, _ := set.All() // LoadFiles holds every object whole: nothing to read again
			byDoc = append(byDoc, all)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !ok {
		// Each document decodes alone, the release's documents together do not: past the
		// release's one node bound, which no document alone reaches.
		return nil, fmt.Errorf("%s %q: its chart's documents: %w", inst.entry.Kind, qualifiedName(inst.entry), whole)
	}
	var objs []manifest.Object
	for i, d := range docs {
		for _, o := range byDoc[i] {
			o.MapFiles(func(string) string { return rels[i] })
			objs = append(objs, maps[d.template].place(o, d.index, rels[i], inst.vals, valuesPrefix(d.template)))
		}
	}
	return objs, nil
}

// decodeDocs decodes a render's documents in one load (one table of field paths and one
// node bound for the release, as a file of many documents has), each document a file of
// its own named by its index; the error when they do not all decode.
func decodeDocs(docs []renderedDoc, tolerate func(apiVersion, kind, field string) bool) ([][]manifest.Object, error) {
	files := make([]manifest.File, len(docs))
	for i, d := range docs {
		files[i] = manifest.File{Name: strconv.Itoa(i), Data: []byte(d.text)}
	}
	set, err := manifest.LoadFiles(files, manifest.Options{AllowDuplicates: true, Tolerate: tolerate})
	if err != nil {
		return nil, err
	}
	all, err := set.All() // LoadFiles holds every object whole: nothing to read again
	if err != nil {
		return nil, err
	}
	byDoc := make([][]manifest.Object, len(docs))
	for _, o := range all {
		i, err := strconv.Atoi(o.Source.File)
		if err != nil || i < 0 || i >= len(docs) {
			return nil, fmt.Errorf("internal error: a rendered document named %q", o.Source.File)
		}
		byDoc[i] = append(byDoc[i], o)
	}
	return byDoc, nil
}

// valuesPrefix is where a subchart's values sit in the release's: under its name, for
// each subchart down ("app/charts/db/templates/x.yaml": "db.").
func valuesPrefix(template string) string {
	parts := strings.Split(template, "/")
	var prefix string
	for i := 1; i+1 < len(parts); i++ {
		if parts[i] == "charts" && parts[i-1] != "templates" {
			prefix += parts[i+1] + "."
			i++
		}
	}
	return prefix
}

// countDocs is how many documents (empty ones too) a template rendered.
func countDocs(docs []renderedDoc, template string) int {
	n := 0
	for _, d := range docs {
		if d.template == template && d.index+1 > n {
			n = d.index + 1
		}
	}
	return n
}

// renderedError words a rendered document that does not decode: the template, and which
// release rendered it.
func renderedError(err error, inst *install, d renderedDoc, tm *templateMap) error {
	var out []error
	for _, e := range flatten(err) {
		var de *manifest.DecodeError
		if errors.As(e, &de) {
			c := *de
			c.Line = tm.line(d.index, c.Field) // the output's line is no line of the template
			c.Msg += fmt.Sprintf(" (as rendered by %s %q, document %d of its template)", inst.entry.Kind, qualifiedName(inst.entry), d.index+1)
			out = append(out, &c)
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// templateMap is what a template's text says of the documents it renders, when each of
// its documents is one written document (no loop makes documents): each document's first
// line, its fields' lines, and the fields set from a plain .Values expression.
type templateMap struct {
	chunks []chunk // nil when the template's documents cannot be matched to the output
}

type chunk struct {
	start  int
	lines  map[string]int    // field path → template line
	values map[string]string // field path → .Values path
}

// docSep is how Helm splits a template's output into documents.
var docSep = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

var (
	keyLine     = regexp.MustCompile(`^(\s*)([A-Za-z0-9_./-]+|"[^"]*"|'[^']*'):(\s|$)`)
	plainValue  = regexp.MustCompile(`^\s*\{\{-?\s*\$?\.Values\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*(?:\|\s*(?:quote|squote|int|int64|float64|toString)\s*)?-?\}\}\s*$`)
	blockAction = regexp.MustCompile(`\{\{-?\s*(if|range|with|define|block|end)\b`)
)

// mapTemplate reads a template's layout. Its documents match the output's when it writes
// as many as rendered and no range, with, define or block runs across them.
func mapTemplate(text string, rendered int) *templateMap {
	var starts []int
	prev := 0
	for _, m := range docSep.FindAllStringIndex(text, -1) {
		if text[prev:m[0]] != "" {
			starts = append(starts, prev)
		}
		prev = m[1]
	}
	if text[prev:] != "" {
		starts = append(starts, prev)
	}
	if len(starts) != rendered || rendered == 0 {
		return &templateMap{}
	}
	tm := &templateMap{}
	for i, s := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		c, ok := mapChunk(text[s:end], strings.Count(text[:s], "\n")+1)
		if !ok {
			return &templateMap{}
		}
		tm.chunks = append(tm.chunks, c)
	}
	return tm
}

// mapChunk reads one document of a template: its keys' paths by indentation (lines only
// of actions left out; what a list item holds is not mapped), not inside a loop.
func mapChunk(text string, first int) (chunk, bool) {
	c := chunk{lines: map[string]int{}, values: map[string]string{}}
	type level struct {
		indent int
		key    string
	}
	var stack []level
	var blocks []string
	for i, line := range strings.Split(text, "\n") {
		n := first + i
		for _, m := range blockAction.FindAllStringSubmatch(line, -1) {
			if m[1] == "end" {
				if len(blocks) > 0 {
					blocks = blocks[:len(blocks)-1]
				}
				continue
			}
			blocks = append(blocks, m[1])
		}
		for _, b := range blocks {
			if b != "if" {
				return c, false // a loop or a new scope: its output is no line of the text
			}
		}
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if c.start == 0 {
			c.start = n
		}
		indent := len(m[1])
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		key := strings.Trim(m[2], `"'`)
		if strings.ContainsAny(key, "./") {
			key = "[" + key + "]" // as the check names a map's key: labels, annotations
		}
		var path string
		for _, s := range stack {
			path = joinField(path, s.key)
		}
		path = joinField(path, key)
		stack = append(stack, level{indent, key})
		if _, seen := c.lines[path]; !seen {
			c.lines[path] = n
		}
		if v := plainValue.FindStringSubmatch(line[len(m[0]):]); v != nil {
			c.values[path] = v[1]
		}
	}
	return c, true
}

// place puts a rendered object at its template: where the template's layout is known, at
// its document's first line with each field at its line, and a field set from a plain
// .Values expression at the values source that set it; else at the template's first line.
func (tm *templateMap) place(o manifest.Object, index int, file string, vals *values, prefix string) manifest.Object {
	if index >= len(tm.chunks) {
		return manifest.Rendered(o, &manifest.Object{Source: manifest.Source{File: file, Line: 1}})
	}
	c := tm.chunks[index]
	start := c.start
	if start == 0 {
		start = 1
	}
	o = manifest.Rendered(o, &manifest.Object{Source: manifest.Source{File: file, Line: start}})
	for path, line := range c.lines {
		o.AddOrigin(manifest.FieldOrigin{Field: path, File: file, Line: line})
	}
	for path, from := range c.values {
		if p, ok := vals.origin(prefix + from); ok {
			o.AddOrigin(manifest.FieldOrigin{Field: path, File: p.file, Line: p.line,
				Note: fmt.Sprintf("set by the values at this line: {{ .Values.%s }} in %s:%d", from, file, c.lines[path])})
		}
	}
	return o
}

// line is the template's line of a field of its index'th document, or of the nearest
// field above it; 0 when the template's layout is not known.
func (tm *templateMap) line(index int, field string) int {
	if index >= len(tm.chunks) {
		return 0
	}
	c := tm.chunks[index]
	steps := manifest.FieldSteps(field)
	for n := len(steps); n > 0; n-- {
		for path, line := range c.lines {
			if equalSteps(manifest.FieldSteps(path), steps[:n]) {
				return line
			}
		}
	}
	return c.start
}

func equalSteps(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// joinField appends a step to a field path: a bracketed key as it is.
func joinField(path, step string) string {
	if path == "" || strings.HasPrefix(step, "[") {
		return path + step
	}
	return path + "." + step
}
