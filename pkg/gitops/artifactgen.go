package gitops

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// externalArtifact is an ExternalArtifact an ArtifactGenerator of the tree builds: named
// after its spec.artifacts[].name, in the generator's namespace, as source-watcher names it.
type externalArtifact struct {
	gen   *manifest.Object
	index int // in the generator's spec.artifacts
	ops   []copyOp
	// sources are the generator's spec.sources by alias, namespaces defaulted to its own.
	sources map[string]sourceRef
	err     error // the generator's spec does not decode

	built    bool
	view     *view
	buildErr error
	reported bool // buildErr was returned once: the next Kustomization only refers to it
}

// generatorSpec is what the tools read of an ArtifactGenerator's spec.
type generatorSpec struct {
	Sources []struct {
		Alias     string `json:"alias"`
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"sources"`
	PathPattern string `json:"pathPattern"`
	Artifacts   []struct {
		Name string `json:"name"`
		Copy []struct {
			From     string   `json:"from"`
			To       string   `json:"to"`
			Exclude  []string `json:"exclude"`
			Strategy string   `json:"strategy"`
		} `json:"copy"`
	} `json:"artifacts"`
}

// findArtifacts indexes the ExternalArtifacts the tree's ArtifactGenerators build, by
// "NAMESPACE/NAME". A generator with spec.pathPattern names its artifacts after what the
// pattern captures in a source: those are not indexed (their Kustomizations stay counted).
func (l *loader) findArtifacts() map[string][]*externalArtifact {
	if l.artifacts != nil {
		return l.artifacts
	}
	l.artifacts = map[string][]*externalArtifact{}
	for i := range l.raw.Objects {
		g := &l.raw.Objects[i]
		if group(g) != "source.extensions.fluxcd.io" || g.Kind != "ArtifactGenerator" {
			continue
		}
		var spec generatorSpec
		u, _, _ := unstructured.NestedMap(content(g), "spec")
		err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &spec)
		if spec.PathPattern != "" {
			continue
		}
		srcs := map[string]sourceRef{}
		for _, s := range spec.Sources {
			ns := s.Namespace
			if ns == "" {
				ns = g.Namespace
			}
			srcs[s.Alias] = sourceRef{kind: s.Kind, namespace: ns, name: s.Name}
		}
		for j, a := range spec.Artifacts {
			ea := &externalArtifact{gen: g, index: j, sources: srcs, err: err}
			for _, c := range a.Copy {
				ea.ops = append(ea.ops, copyOp{From: c.From, To: c.To, Exclude: c.Exclude, Strategy: c.Strategy})
			}
			key := g.Namespace + "/" + a.Name
			l.artifacts[key] = append(l.artifacts[key], ea)
		}
	}
	return l.artifacts
}

// artifactFor is the ExternalArtifact a Kustomization's sourceRef names, nil when no
// generator of the tree builds it. Each management cluster has its own generators (of one
// name in every cluster, as flux bootstrap lays them out): the one of the Kustomization's
// target is taken, else the only one. A reference without a namespace matches by name.
func (l *loader) artifactFor(e *manifest.Object, s sourceRef) *externalArtifact {
	if s.kind != "ExternalArtifact" {
		return nil
	}
	var cands []*externalArtifact
	for k, as := range l.findArtifacts() {
		if k == s.namespace+"/"+s.name || (s.namespace == "" && strings.HasSuffix(k, "/"+s.name)) {
			cands = append(cands, as...)
		}
	}
	target := targetName(l, e)
	for _, a := range cands {
		if targetName(l, a.gen) == target {
			return a
		}
	}
	if len(cands) == 1 {
		return cands[0]
	}
	return nil
}

// ownArtifact reports whether every source an artifact copies from is this repository.
// An alias the generator does not declare counts as this repository's: the build then
// fails as the controller's does.
func (l *loader) ownArtifact(a *externalArtifact) bool {
	for _, op := range a.ops {
		alias, _, _ := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
		if s, ok := a.sources[alias]; ok && !l.ownRepository(s) {
			return false
		}
	}
	return true
}

// artifactView builds an artifact's tree once, from the source trees of its aliases.
func (l *loader) artifactView(a *externalArtifact) (*view, error) {
	if a.built {
		return a.view, a.buildErr
	}
	a.built = true
	field := fmt.Sprintf("spec.artifacts[%d]", a.index)
	if a.err != nil {
		a.buildErr = l.generatorError(a, "spec", "not an ArtifactGenerator spec: "+a.err.Error())
		return nil, a.buildErr
	}
	// The repository's root is where its Kustomizations' paths start (the first directory
	// of the manifests).
	sources := map[string]*view{}
	for alias, s := range a.sources {
		if !l.ownRepository(s) {
			continue
		}
		st, err := l.sourceTree(l.root[0], l.gitIgnoreSpec(s))
		if err != nil {
			a.buildErr = l.generatorError(a, field, err.Error())
			return nil, a.buildErr
		}
		sources[alias] = st.view()
	}
	v, j, err := buildArtifact(a.ops, sources)
	switch {
	case errors.Is(err, errUnrendered):
		a.buildErr = err
	case err != nil:
		a.buildErr = l.generatorError(a, fmt.Sprintf("%s.copy[%d]", field, j), err.Error())
	}
	a.view = v
	return v, a.buildErr
}

func (l *loader) generatorError(a *externalArtifact, field, msg string) error {
	g := a.gen
	return &manifest.DecodeError{File: g.Source.File, Line: g.Line(field), Kind: g.Kind, Namespace: g.Namespace,
		Name: g.Name, Field: field, Msg: msg}
}

// buildFromArtifact renders a Flux Kustomization whose source is an ExternalArtifact of
// this repository: its spec.path is a directory of the artifact, as kustomize-controller
// finds it there.
func (l *loader) buildFromArtifact(e *manifest.Object, t *Tree, s sourceRef, p string, ov overlay) ([]manifest.Object, map[string]bool, error) {
	a := l.artifactFor(e, s)
	v, err := l.artifactView(a)
	if errors.Is(err, errUnrendered) {
		l.skipped[e] = true
		t.NotRendered["Kustomization (kustomize.toolkit.fluxcd.io) from ExternalArtifact"]++
		t.Elsewhere = append(t.Elsewhere, Elsewhere{Object: *e, Kind: s.kind,
			Source: fmt.Sprintf("%s (its ArtifactGenerator %s/%s copies with %v)", s, a.gen.Namespace, a.gen.Name, err)})
		return nil, nil, errNotRendered
	}
	if err != nil {
		if a.reported {
			return nil, nil, entryError(e, "spec.sourceRef", fmt.Sprintf("%s is not built: its ArtifactGenerator %s/%s fails", s, a.gen.Namespace, a.gen.Name))
		}
		a.reported = true
		return nil, nil, err
	}
	rel := artifactPath(p)
	if !v.dirs[rel] {
		return nil, nil, entryError(e, "spec.path", fmt.Sprintf("kustomization path not found: stat %s: no such file or directory "+
			"(%s, which ArtifactGenerator %s/%s builds, holds no such directory)", p, s, a.gen.Namespace, a.gen.Name))
	}
	return l.renderView(v, rel, ov, e)
}

// artifactPath is spec.path inside an artifact, as kustomize-controller joins it to the
// artifact's root: nothing climbs out of it.
func artifactPath(p string) string {
	rel := strings.TrimPrefix(path.Clean("/"+p), "/")
	if rel == "" {
		return "."
	}
	return rel
}

func entryError(e *manifest.Object, field, msg string) error {
	return &manifest.DecodeError{File: e.Source.File, Line: e.Line(field), Kind: e.Kind, Namespace: e.Namespace,
		Name: e.Name, Field: field, Msg: msg}
}

// gitIgnoreSpec is a GitRepository's spec.ignore, "" when the tree does not hold it (the
// bootstrap's placeholder) or it sets none.
func (l *loader) gitIgnoreSpec(s sourceRef) string {
	for i := range l.raw.Objects {
		o := &l.raw.Objects[i]
		if group(o) == "source.toolkit.fluxcd.io" && o.Kind == "GitRepository" && o.Name == s.name &&
			(s.namespace == "" || o.Namespace == s.namespace) {
			ig, _, _ := unstructured.NestedString(content(o), "spec", "ignore")
			return ig
		}
	}
	return ""
}
