package gitops

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// maxRepoPaths bounds the directories or files a git generator lists.
const maxRepoPaths = 200_000

// gitItem is one entry of a git generator's directories or files.
type gitItem struct {
	path    string
	exclude bool
}

// gitParams is a git generator's parameter sets: one per directory its globs match
// (none excluded), or per object of the files they match, as Argo CD's repo server
// lists them. A generator of another repository is not expanded (skip).
func (l *loader) gitParams(s *manifest.Object, body map[string]any, field string, r renderer) ([]params, string, error) {
	repoURL, _ := body["repoURL"].(string)
	prefix, _ := body["pathParamPrefix"].(string)
	values, _, _ := unstructured.NestedStringMap(body, "values")
	dirs, err := gitItems(body["directories"])
	if err != nil {
		return nil, "", l.setError(s, field+".directories", "%v", err)
	}
	files, err := gitItems(body["files"])
	if err != nil {
		return nil, "", l.setError(s, field+".files", "%v", err)
	}
	if len(dirs) == 0 && len(files) == 0 {
		return nil, "", l.setError(s, field, "neither directories nor files")
	}
	for _, f := range files {
		if strings.Contains(f.path, "**") {
			// The repo server's globbing of ** differs between Argo CD's settings.
			return nil, "with a git files generator globbing **", nil
		}
	}
	var ps []params
	if len(dirs) > 0 {
		ps, err = l.dirParams(dirs, prefix, r)
	} else {
		ps, err = l.fileParams(files, prefix, r)
	}
	if err != nil {
		return nil, "", l.setError(s, field, "%v", err)
	}
	if !l.thisRepo(repoURL, len(ps) > 0) {
		return nil, "with a git generator of another repository", nil
	}
	for _, p := range ps {
		if err := r.addValues(values, p); err != nil {
			return nil, "", l.setError(s, field+".values", "%v", err)
		}
	}
	return ps, "", nil
}

func gitItems(v any) ([]gitItem, error) {
	list, _ := v.([]any)
	var out []gitItem
	for i, x := range list {
		m, _ := x.(map[string]any)
		p, _ := m["path"].(string)
		if p == "" {
			return nil, fmt.Errorf("[%d].path is not set", i)
		}
		ex, _ := m["exclude"].(bool)
		out = append(out, gitItem{path: p, exclude: ex})
	}
	return out, nil
}

// matches is Argo CD's filter: a path some include glob matches and no exclude glob
// does (path.Match; an exclude wins over every include).
func matches(items []gitItem, p string) bool {
	in, out := false, false
	for _, it := range items {
		if ok, err := path.Match(it.path, p); err == nil && ok {
			if it.exclude {
				out = true
			} else {
				in = true
			}
		}
	}
	return in && !out
}

// named reports whether any glob, include or exclude, matches p.
func named(items []gitItem, p string) bool {
	for _, it := range items {
		if ok, err := path.Match(it.path, p); err == nil && ok {
			return true
		}
	}
	return false
}

func (l *loader) dirParams(items []gitItem, prefix string, r renderer) ([]params, error) {
	all, err := l.repoPaths(true)
	if err != nil {
		return nil, err
	}
	var out []params
	for _, d := range all {
		if matches(items, d) {
			p := params{}
			pathParams(p, d, "", prefix, r.goTemplate)
			out = append(out, p)
		}
	}
	return out, nil
}

// fileParams reads each file the globs match (in order of path): a YAML or JSON object,
// or a list of them, each a parameter set with the file's path parameters.
func (l *loader) fileParams(items []gitItem, prefix string, r renderer) ([]params, error) {
	all, err := l.repoPaths(false)
	if err != nil {
		return nil, err
	}
	var out []params
	for _, f := range all {
		abs := filepath.Join(l.root[0], filepath.FromSlash(f))
		if !matches(items, f) {
			if named(items, f) {
				l.argo.inputs[abs] = true // an excluded input is still the generator's, not a manifest
			}
			continue
		}
		data, err := fileio.ReadFile(abs, manifest.DefaultMaxFileBytes)
		if err != nil {
			return nil, err
		}
		l.argo.inputs[abs] = true
		objs := []any{}
		if m, err := fromYAML(string(data)); err == nil {
			objs = append(objs, m)
		} else if objs, err = fromYAMLArray(string(data)); err != nil {
			return nil, fmt.Errorf("%s: neither a YAML object nor a list of them: %v", f, err)
		}
		for _, o := range objs {
			m, _ := o.(map[string]any)
			p := params{}
			if r.goTemplate {
				for k, v := range m {
					p[k] = v
				}
			} else {
				flattenParams("", m, p)
			}
			pathParams(p, path.Dir(f), f, prefix, r.goTemplate)
			out = append(out, p)
		}
	}
	return out, nil
}

// repoPaths lists the repository's directories (or regular files), relative and
// slash-separated, in order, without what is below a directory whose name starts with
// "." (.git), as Argo CD's repo server lists them. The repository is the first
// directory of the manifests (or the root given).
func (l *loader) repoPaths(dirs bool) ([]string, error) {
	if c := l.argo.paths[dirs]; c != nil {
		return c, nil
	}
	root := l.root[0]
	out := []string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if p == root || d.IsDir() != dirs || (!dirs && !d.Type().IsRegular()) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if len(out) >= maxRepoPaths {
			return fmt.Errorf("more than %d paths below %s", maxRepoPaths, root)
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	l.argo.paths[dirs] = out
	return out, nil
}

// thisRepo decides whether a git generator's repoURL is this repository: the URL of one
// of the git repository's remotes, or one of the repoURLs whose written Applications (or
// ApplicationSet templates) have a path found here. When neither says which URL this
// repository has, a generator whose globs match here is taken for it, and the tree's
// RepoNote says so.
func (l *loader) thisRepo(url string, matchesHere bool) bool {
	if _, ok := l.remoteURLs()[normalURL(url)]; ok {
		return true
	}
	known := l.knownRepos()
	if len(known) > 0 {
		return known[normalURL(url)]
	}
	if matchesHere {
		l.argo.guessed = true
	}
	return matchesHere
}

// knownRepos are the repoURLs written with a path of this repository.
func (l *loader) knownRepos() map[string]bool {
	if l.argo.known != nil {
		return l.argo.known
	}
	l.argo.known = map[string]bool{}
	add := func(src map[string]any) {
		url, _ := src["repoURL"].(string)
		p, _ := src["path"].(string)
		if url == "" || p == "" || strings.Contains(url+p, "{{") {
			return
		}
		if dir, ok := l.resolveDir(p); ok && l.inChart(dir) == "" {
			l.argo.known[normalURL(url)] = true
		}
	}
	for i := range l.raw.Objects {
		o := &l.raw.Objects[i]
		var spec []string
		switch {
		case isArgoApplication(o):
			spec = []string{"spec"}
		case isArgoApplicationSet(o):
			spec = []string{"spec", "template", "spec"}
		default:
			continue
		}
		u := content(o)
		if src, ok, _ := unstructured.NestedMap(u, append(spec, "source")...); ok {
			add(src)
		}
		srcs, _, _ := unstructured.NestedSlice(u, append(spec, "sources")...)
		for _, s := range srcs {
			if m, ok := s.(map[string]any); ok {
				add(m)
			}
		}
	}
	return l.argo.known
}
