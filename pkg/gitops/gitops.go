// Package gitops reads a GitOps repository as its controllers apply it: directories with a
// kustomization.yaml are built as `kubectl kustomize` builds them (with the kustomize
// library kubectl embeds), Flux Kustomizations and Argo CD Applications are entry points
// whose output is what lands in a cluster, and each management cluster they reconcile into
// is a target of its own. Every rendered object keeps where it was written, and the fields
// a patch set point at the patch, so a finding lands on the line a person edits. A tree
// without any of these reads as manifest.LoadWith reads it.
package gitops

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Options of Load.
type Options struct {
	Manifest manifest.Options
	// Root is the repository root that Flux's spec.path and Argo CD's source.path are
	// relative to, when they are not found below the first directory of the manifests.
	Root string
	// CRDs, when set, are the files whose CustomResourceDefinitions decide which fields
	// the tools do not know are tolerated (left unjudged), in place of the tree's own: a
	// change is judged by the base's CRDs, never by ones it brings. Asked for only when
	// a document has a field the tools do not know.
	CRDs func() []string
	// Sources are the GitRepositories ("NAMESPACE/NAME") that are this repository, besides
	// the one a bootstrap sync of the tree points at: a Flux Kustomization sourced from
	// any other source is not rendered from this tree.
	Sources []string
	// Remotes, when set, are the remotes of the git repository the tree is in: a source
	// of one of their URLs is this repository too. Called once, only when a GitRepository
	// or an ApplicationSet's git generator asks; an error is a note (RemoteNotes).
	Remotes func() ([]Remote, error)
	// Charts bound the Helm charts' reads and renders (zero: the defaults).
	Charts ChartBounds

	// For tests: every build by kustomize as a whole (the result direct must equal), and
	// how many builds took which way.
	kustomizeOnly bool
	stats         *buildStats
}

// buildStats counts builds: rendered without kustomize's whole build, or by it.
type buildStats struct{ direct, kustomize int }

func (s *buildStats) add(direct bool) {
	switch {
	case s == nil:
	case direct:
		s.direct++
	default:
		s.kustomize++
	}
}

// Tree is a repository as its controllers would apply it.
type Tree struct {
	// Targets are the object sets judged apart: one per management cluster the entry points
	// reconcile into, or one unnamed target for a tree without entry points.
	Targets []Target
	// Recognised counts, by kind, the documents the check knows and does not judge
	// (Kustomize, Flux, Argo CD, sealed and SOPS-encrypted secrets, Kubernetes kinds).
	Recognised map[string]int
	// NotRendered counts, by kind, what the controllers render and this package does not
	// (HelmReleases of charts from elsewhere, Argo CD Applications of other repositories or
	// of charts from a registry).
	NotRendered map[string]int
	// Unknown are documents of API groups the check does not know.
	Unknown []manifest.Object
	// Unreached are Butler and Steward objects of the tree that no entry point applies.
	Unreached []manifest.Object
	// LeftOut are the tool folders (manifest.ToolDirs) the walk did not enter.
	LeftOut []string
	// NotObjects are the documents that are YAML but not Kubernetes objects (no apiVersion,
	// kind or metadata: a tool's configuration, Helm values), where each starts.
	NotObjects []manifest.Source
	// Raw is every object of the files as written.
	Raw *manifest.Set
	// Elsewhere are the Flux Kustomizations whose source is not this repository, not
	// rendered (counted in NotRendered by the source's kind).
	Elsewhere []Elsewhere
	// Charts are the directories of Helm charts (holding Chart.yaml), as walked, that no
	// HelmRelease or Application of the tree installs: their files are templates, not
	// manifests, and are not read. A chart one installs is rendered as it installs it.
	Charts []string
	// SourceNote, when not "", says that no source was identified as this repository, so
	// every Flux Kustomization was rendered from it.
	SourceNote string
	// RemoteNotes say which GitRepositories were taken for this repository because their
	// spec.url is a remote's of the git repository the tree is in, and which ref each
	// follows; or that the remotes could not be read.
	RemoteNotes []string
	// Generated are the Applications each ApplicationSet generated; Unrendered the entry
	// points and generators not rendered, each counted in NotRendered too.
	Generated  []Generated
	Unrendered []Unrendered
	// RepoNote, when not "", says how ApplicationSets' git generators were taken for this
	// repository without an Application naming its URL.
	RepoNote string
}

// Target is one management cluster's objects.
type Target struct {
	Name string // "" for a tree without entry points
	Set  *manifest.Set
}

const coverageFile = "coverage.yaml"

// kustomizationNames are the file names kustomize reads as a directory's kustomization.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

func isKustomizationFile(p string) bool {
	base := filepath.Base(p)
	for _, n := range kustomizationNames {
		if base == n {
			return true
		}
	}
	return false
}

// Load reads the manifests at paths (as manifest.LoadWith: files, directories, "-") and
// renders what the controllers would apply. Errors are manifest's (errors.Join of
// *manifest.DecodeError and file errors): what does not decode, and what does not render
// (a kustomization that does not build, a variable that cannot be substituted).
func Load(paths []string, stdin io.Reader, opts Options) (*Tree, error) {
	t, err := load(paths, stdin, opts)
	if err != nil {
		return nil, errors.Join(flatten(err)...)
	}
	return t, nil
}

// flatten lists the errors of nested errors.Join, so each is one finding.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func load(paths []string, stdin io.Reader, opts Options) (*Tree, error) {
	files, _ := manifest.Walk(paths, opts.Manifest) // what it cannot walk, LoadWith reports below
	l := &loader{opts: opts, kusts: map[string]*kustomization{}, manyKusts: map[string]bool{}, display: map[string]string{},
		templates: map[string]manifest.File{}, substituted: map[templateKey]*manifest.Set{}}
	l.wd, _ = os.Getwd()
	t := &Tree{Recognised: map[string]int{}, NotRendered: map[string]int{}}
	skip, errs := l.scan(files, t, opts.Manifest)
	mo := opts.Manifest
	mo.Skip = l.skipper(skip)
	mo.AllowDuplicates = true // one per target is fine; each target is checked below
	l.once = newOnceReader(stdin, opts.Manifest.ReadFile)
	mo.ReadFile = l.once.readFile
	raw, err := l.loadTolerant(paths, &mo)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	l.raw = raw
	l.root = rootOf(paths, opts.Root)
	entries := l.entries()
	l.findSources(t)
	if len(entries) == 0 {
		// Without Flux there is no substitution: templates are manifests like the others.
		if err := l.plainTemplates(); err != nil {
			return nil, err
		}
	}
	t.Raw = raw
	t.LeftOut = raw.LeftOut
	defer func() { t.notObjects(l.valuesRead(t, l.raw.NotObjects)) }() // once every template has decoded
	defer l.remoteNote(t)
	for i := range raw.Objects {
		o := &raw.Objects[i]
		switch {
		case judged(o):
		case Recognised(o):
			t.Recognised[kindLabel(o)]++
		default:
			t.Unknown = append(t.Unknown, *o)
		}
	}
	if len(entries) == 0 && len(l.kusts) == 0 && !l.anyRelease() {
		if errs := raw.Duplicates(); len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		t.Targets = []Target{{Set: raw}}
		t.Charts = l.unrenderedCharts()
		return t, nil
	}
	// The renders take the tree's objects whole: its clusters are read through the set's
	// Clusters (again, for those the load kept as records), not the tree again.
	if l.all, err = objectsOf(raw); err != nil {
		return nil, err
	}
	if err := l.render(t, entries); err != nil {
		return nil, err
	}
	t.Charts = l.unrenderedCharts()
	return t, nil
}

// skipper is the raw load's Skip: the files the renderer reads (skip, by absolute path),
// and the templates of Flux's postBuild, kept aside until their variables are known.
func (l *loader) skipper(skip map[string]bool) func(p string, data []byte) bool {
	return func(p string, data []byte) bool {
		abs := l.abs(p)
		if skip[abs] {
			return true
		}
		if bytes.Contains(data, []byte("${")) { // not string(data): that copies every file
			// A template of Flux's postBuild: it decodes once its variables are substituted.
			l.templates[abs] = manifest.File{Name: p, Data: data}
			return true
		}
		return false
	}
}

// loadTolerant is manifest.LoadWith. Fields the CRDs declare (the tree's own, or
// opts.CRDs') are left unjudged, with a warning, rather than refused: the tools may be
// older than the CRDs. The load tolerates every field provisionally while it reads the
// files (the CRDs among them) and settles at its end (manifest.Options.Settle), decoding
// again, from the bytes it read, only a file holding a field no CRD declares: its result
// is then an error. mo then tolerates the declared fields for the loads that follow.
func (l *loader) loadTolerant(paths []string, mo *manifest.Options) (*manifest.Set, error) {
	first := *mo
	first.Settle = func() func(apiVersion, kind, field string) bool {
		var tol func(apiVersion, kind, field string) bool
		if l.opts.CRDs != nil {
			tol = crdTolerance(l.once.readCRDFiles(l.opts.CRDs(), l.opts.Manifest.MaxFileBytes))
		} else {
			tol = crdTolerance(l.once.crds)
		}
		if tol != nil {
			mo.Tolerate, l.tolerate = tol, tol
		}
		return tol
	}
	return manifest.LoadWith(paths, l.once.stdinFor(), first)
}

// objectsOf is every object of a set in the order read, its clusters whole: the set's
// own objects, and its clusters as its Clusters give them.
func objectsOf(set *manifest.Set) ([]*manifest.Object, error) {
	out := make([]*manifest.Object, 0, len(set.Objects)+set.Clusters.Len())
	err := set.Walk(func(o *manifest.Object) error {
		out = append(out, o)
		return nil
	})
	return out, err
}

// scan reads the kustomization files and coverage.yaml among the files walked: they, and
// the patches and generator sources the kustomizations name, are read by the renderer,
// not as objects (skip, by absolute path).
func (l *loader) scan(files []string, t *Tree, opts manifest.Options) (map[string]bool, []error) {
	var errs []error
	skip := map[string]bool{}
	l.findCharts(files, t, skip)
	for _, f := range files {
		abs := l.abs(f)
		l.display[abs] = f
		switch {
		case skip[abs]: // a chart's file
		case isKustomizationFile(f):
			k, err := readKustomization(f, opts)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if _, seen := l.kusts[filepath.Dir(abs)]; seen {
				l.manyKusts[filepath.Dir(abs)] = true
			}
			l.kusts[filepath.Dir(abs)] = k
			skip[abs] = true
			t.Recognised["Kustomization (kustomize.config.k8s.io)"]++
		case filepath.Base(f) == coverageFile:
			if err := readCoverage(f, opts); err != nil {
				errs = append(errs, err)
				continue
			}
			skip[abs] = true
			t.Recognised["coverage.yaml (export coverage)"]++
		}
	}
	for dir, k := range l.kusts {
		for _, in := range k.inputs {
			skip[filepath.Join(dir, in)] = true
		}
	}
	return skip, errs
}

// NotObjectsLabel is how the summary counts the documents that are not Kubernetes objects.
const NotObjectsLabel = "non-Kubernetes YAML (no apiVersion or kind)"

func (t *Tree) notObjects(srcs []manifest.Source) {
	t.NotObjects = srcs
	if len(srcs) > 0 {
		t.Recognised[NotObjectsLabel] = len(srcs)
	}
}

// kindLabel is how the summary counts a recognised document.
func kindLabel(o *manifest.Object) string {
	if isSOPS(o) {
		return o.Kind + " (SOPS-encrypted)"
	}
	if g := group(o); g != "" {
		return o.Kind + " (" + g + ")"
	}
	return o.Kind
}

// rootOf is where entry points' paths start: the first directory of the manifests, else
// the repository root given, else the working directory.
func rootOf(paths []string, root string) []string {
	var roots []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			roots = append(roots, absPath(p))
			break
		}
	}
	if root != "" {
		roots = append(roots, absPath(root))
	}
	return append(roots, absPath("."))
}

// abs is absPath with the working directory the load started in: filepath.Abs asks the
// system for it (two stats) on every call, and a load asks for every file several times.
func (l *loader) abs(p string) string {
	if l.wd == "" || filepath.IsAbs(p) {
		return absPath(p)
	}
	return filepath.Join(l.wd, p)
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

// sortedKeys lists a count's keys in order.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Summary words counts by kind: "2 HelmRelease, 1 Kustomization".
func Summary(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, strconv.Itoa(m[k])+" "+k)
	}
	return strings.Join(parts, ", ")
}
