package gitops

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Remote is a remote of the git repository the tree is in: its name and URL as the
// repository's configuration holds them (remote.NAME.url).
type Remote struct{ Name, URL string }

// remoteSources adds to l.sources the GitRepositories of the tree whose spec.url is the
// URL of one of this repository's remotes, as Flux users spell the same repository
// (https or ssh, with or without ".git", a trailing "/", the host's case), and says why in
// t.RemoteNotes. The ref it follows does not matter: the check reads the tree as it is
// here, the change a pull request makes to that branch; the note names the ref so that a
// reader sees when Flux reads another one.
func (l *loader) remoteSources(t *Tree) {
	if l.opts.Remotes == nil {
		return
	}
	var repos []*gitRepo
	for i := range l.raw.Objects {
		o := &l.raw.Objects[i]
		if group(o) != "source.toolkit.fluxcd.io" || o.Kind != "GitRepository" {
			continue
		}
		url, _, _ := unstructured.NestedString(content(o), "spec", "url")
		if url != "" {
			repos = append(repos, &gitRepo{id: o.Namespace + "/" + o.Name, url: url, ref: gitRef(content(o))})
		}
	}
	if len(repos) == 0 {
		return // no git process for a tree without GitRepositories
	}
	byURL := l.remoteURLs()
	for _, g := range repos {
		r, ok := byURL[normalURL(g.url)]
		if !ok || l.sources[g.id] {
			continue
		}
		l.sources[g.id] = true
		note := fmt.Sprintf("GitRepository %s is this repository: its spec.url %s is the URL of the remote %q of the git repository the tree is in (%s)",
			g.id, withoutUser(g.url), r.Name, withoutUser(r.URL))
		if g.ref != "" {
			note += "; Flux reads its " + g.ref + ", the check the tree as it is here"
		}
		t.RemoteNotes = append(t.RemoteNotes, note)
	}
}

// remoteURLs are this repository's remotes by normalURL, the first by name of those that
// share one; asked of Options.Remotes once, none without it or when they cannot be read
// (remoteNote then says so).
func (l *loader) remoteURLs() map[string]Remote {
	if l.remotes != nil || l.opts.Remotes == nil {
		return l.remotes
	}
	l.remotes = map[string]Remote{}
	remotes, err := l.opts.Remotes()
	l.remotesErr = err
	sort.SliceStable(remotes, func(i, j int) bool { return remotes[i].Name < remotes[j].Name })
	for _, r := range remotes {
		if _, ok := l.remotes[normalURL(r.URL)]; !ok && r.URL != "" {
			l.remotes[normalURL(r.URL)] = r
		}
	}
	return l.remotes
}

// remoteNote says, when the remotes were asked for and could not be read, that no source
// was matched by its URL: a source of this repository may then go unrendered.
func (l *loader) remoteNote(t *Tree) {
	if l.remotesErr != nil {
		t.RemoteNotes = append(t.RemoteNotes, "the git remotes of the repository could not be read, so no "+
			"GitRepository or ApplicationSet git generator is matched by its URL: "+l.remotesErr.Error())
	}
}

// gitRepo is what remoteSources reads of a GitRepository.
type gitRepo struct{ id, url, ref string }

// gitRef words a GitRepository's spec.ref ("branch \"main\""), "" when it has none. Flux
// gives commit precedence over name, name over semver, semver over tag, tag over branch.
func gitRef(u map[string]any) string {
	for _, k := range []string{"commit", "name", "semver", "tag", "branch"} {
		if v, _, _ := unstructured.NestedString(u, "spec", "ref", k); v != "" {
			return fmt.Sprintf("%s %q", k, v)
		}
	}
	return ""
}

// normalURL is a repository URL without what varies between spellings of it: scheme,
// user, the scheme's default port, a trailing ".git" or "/", letter case
// ("git@host:org/repo" and "host:org/repo" are "host/org/repo").
func normalURL(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	scheme := ""
	if i := strings.Index(u, "://"); i >= 0 {
		scheme, u = u[:i], u[i+3:]
	} else if c := strings.Index(u, ":"); c >= 0 && c < strings.Index(u+"/", "/") {
		u = u[:c] + "/" + u[c+1:] // git's scp-like syntax: [user@]host:path
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:]
	}
	host, rest, _ := strings.Cut(u, "/")
	if h, port, ok := strings.Cut(host, ":"); ok && defaultPorts[scheme] == port {
		u = h + "/" + rest
	}
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	return strings.TrimSuffix(u, "/")
}

// defaultPorts are the ports a URL of each scheme means when it names none.
var defaultPorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418"}
