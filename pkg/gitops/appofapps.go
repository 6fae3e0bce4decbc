package gitops

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// App-of-apps: an entry whose output holds Argo CD Applications or ApplicationSets
// creates them in its cluster, and each is an entry point in turn, judged in the target of
// its own destination. The output is read whatever rendered it (a directory, kustomize, a
// chart), so Applications a chart renders are followed too.

// maxAppDepth bounds how deep Applications of Applications are followed.
const maxAppDepth = 10

// argoState is what the loader keeps of Argo CD's entries.
type argoState struct {
	sets    map[*manifest.Object][]*manifest.Object // generated Applications by ApplicationSet
	kids    map[*manifest.Object][]*manifest.Object // the Applications an entry's output creates
	done    map[*manifest.Object]bool               // entries whose descendants were followed
	paths   map[bool][]string                       // the repository's directories (true) or files
	known   map[string]bool                         // repoURLs written with a path of this repository
	guessed bool                                    // a git generator was taken for this repository by its globs
	inputs  map[string]bool                         // files git files generators read, absolute
}

func newArgoState() argoState {
	return argoState{sets: map[*manifest.Object][]*manifest.Object{}, kids: map[*manifest.Object][]*manifest.Object{},
		done: map[*manifest.Object]bool{}, paths: map[bool][]string{}, inputs: map[string]bool{}}
}

// RepoNoteGuessed is Tree.RepoNote when a git generator was taken for this repository by
// what its globs match.
const RepoNoteGuessed = "no Argo CD Application of the tree names this repository's URL with a path found " +
	"here: ApplicationSets' git generators whose globs match here are rendered from this repository"

// expandSets replaces each ApplicationSet among the entries by the Applications it
// generates.
func (l *loader) expandSets(t *Tree, entries []*manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	for _, e := range entries {
		if !isArgoApplicationSet(e) {
			out = append(out, e)
			continue
		}
		out = append(out, l.generate(e, t)...)
	}
	return out
}

// appsOfApps follows the Applications each entry's output creates, rendering each, and
// reports a cycle (naming the chain) or a chain deeper than maxAppDepth.
func (l *loader) appsOfApps(t *Tree, entries []*manifest.Object) []error {
	var errs []error
	var visit func(e *manifest.Object, chain []*manifest.Object)
	visit = func(e *manifest.Object, chain []*manifest.Object) {
		if l.argo.done[e] {
			return
		}
		chain = append(chain, e)
		if len(chain) > maxAppDepth {
			errs = append(errs, appError(e, "Applications of Applications deeper than %d: %s", maxAppDepth, chainText(chain)))
			return
		}
		kids, kerrs := l.kidsOf(e, t)
		errs = append(errs, kerrs...)
		for _, k := range kids {
			if i := indexOf(chain, k); i >= 0 {
				errs = append(errs, appError(k, "Applications create each other in a cycle: %s", chainText(append(chain[i:], k))))
				continue
			}
			visit(k, chain)
		}
		l.argo.done[e] = true
	}
	for _, e := range entries {
		visit(e, nil)
	}
	if l.argo.guessed {
		t.RepoNote = RepoNoteGuessed
	}
	l.generatorInputs(t)
	return errs
}

// generatorInputsLabel is how the summary counts the files git files generators read.
const generatorInputsLabel = "ApplicationSet git files generator input"

// generatorInputs counts the documents git files generators read as their inputs, not as
// YAML that is not Kubernetes.
func (l *loader) generatorInputs(t *Tree) {
	kept := l.raw.NotObjects[:0]
	for _, s := range l.raw.NotObjects {
		if l.argo.inputs[l.abs(s.File)] {
			t.Recognised[generatorInputsLabel]++
			continue
		}
		kept = append(kept, s)
	}
	l.raw.NotObjects = kept
}

// kidsOf is the Applications an entry's output creates (an ApplicationSet's generated
// ones), each rendered. One that is an object of the tree as written is that object, so
// it renders once; one a render changed is a copy.
func (l *loader) kidsOf(e *manifest.Object, t *Tree) ([]*manifest.Object, []error) {
	if kids, ok := l.argo.kids[e]; ok {
		return kids, nil
	}
	l.argo.kids[e] = nil
	out := l.rendered[e]
	if out == nil {
		return nil, nil // not rendered: another repository's
	}
	var kids []*manifest.Object
	var errs []error
	if isArgoApplication(e) {
		// An Application in the directory it applies manages itself: the object is its
		// parent's (or, for a root, created by hand), not a second one in the target.
		out.objects = slices.DeleteFunc(out.objects, func(o manifest.Object) bool { return sameApp(&o, e) })
	}
	for i := range out.objects {
		o := &out.objects[i]
		switch {
		case isArgoApplication(o):
			kids = append(kids, l.asWritten(o))
		case isArgoApplicationSet(o):
			for _, k := range l.generate(l.asWritten(o), t) {
				if k != e && !sameApp(k, e) { // one the entry itself is: it manages itself
					kids = append(kids, k)
				}
			}
		}
	}
	for _, k := range kids {
		if _, done := l.rendered[k]; !done {
			errs = append(errs, l.renderEntry(k, t).errs...)
		}
	}
	l.argo.kids[e] = kids
	return kids, errs
}

// asWritten is the tree's object a rendered one is, when the render left it as written.
func (l *loader) asWritten(o *manifest.Object) *manifest.Object {
	if r := l.rawFor(o); r != nil && r.Name == o.Name && sameContent(r, o) {
		return r
	}
	c := *o
	return &c
}

func sameContent(a, b *manifest.Object) bool {
	x, err1 := json.Marshal(content(a))
	y, err2 := json.Marshal(content(b))
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// descendants are the Applications an entry creates, and theirs, through the Flux
// Kustomizations it applies too.
func (l *loader) descendants(e *manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	seen := map[*manifest.Object]bool{}
	var walk func(e *manifest.Object)
	walk = func(e *manifest.Object) {
		if seen[e] {
			return
		}
		seen[e] = true
		for _, k := range l.argo.kids[e] {
			out = append(out, k)
			walk(k)
		}
		if r := l.rendered[e]; r != nil {
			for _, n := range r.nested {
				walk(n)
			}
		}
	}
	walk(e)
	return out
}

func indexOf(chain []*manifest.Object, e *manifest.Object) int {
	for i, c := range chain {
		if c == e || sameApp(c, e) {
			return i
		}
	}
	return -1
}

// sameApp reports two Argo CD Applications of one name: one object in the cluster.
func sameApp(a, b *manifest.Object) bool {
	return isArgoApplication(a) && isArgoApplication(b) && a.Namespace == b.Namespace && a.Name == b.Name
}

func chainText(chain []*manifest.Object) string {
	parts := make([]string, len(chain))
	for i, c := range chain {
		parts[i] = fmt.Sprintf("%s %s (%s)", c.Kind, qualifiedName(c), c.Source.File)
	}
	return strings.Join(parts, " -> ")
}

func qualifiedName(o *manifest.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

func appError(e *manifest.Object, format string, args ...any) error {
	field := "spec.source.path"
	return &manifest.DecodeError{File: e.Source.File, Doc: e.Source.Doc, Item: e.Source.Item, Line: e.Line(field),
		Kind: e.Kind, Namespace: e.Namespace, Name: e.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
}
