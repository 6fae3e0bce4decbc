package gitops

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// remote reports whether an entry's directory is built from a remote resource (a URL or
// a git repository that a kustomization there, or one it uses, names) and, when it is,
// counts and lists the entry as not rendered: the check reads the repository, never the
// network, so what the entry applies cannot be known here.
func (l *loader) remote(e *manifest.Object, dir, field string, t *Tree) bool {
	r, in := l.remoteIn(dir, map[string]bool{})
	if r == "" {
		return false
	}
	t.NotRendered[kindLabel(e)+" with a remote kustomize resource"]++
	t.Unrendered = append(t.Unrendered, Unrendered{Object: *e, Field: field,
		Reason: "whose kustomization " + filepath.ToSlash(l.rel(in)) + " names the remote resource " + withoutUser(r) + ", not fetched"})
	return true
}

// remoteIn is the first remote resource of the kustomization in dir or of the local
// kustomizations it uses, and the kustomization file naming it.
func (l *loader) remoteIn(dir string, seen map[string]bool) (string, string) {
	k := l.kusts[dir]
	if k == nil || seen[dir] {
		return "", ""
	}
	seen[dir] = true
	//lint:ignore SA1019 kustomize still builds bases, so a remote base is fetched too
	for _, r := range append(append(append([]string{}, k.k.Resources...), k.k.Components...), k.k.Bases...) {
		if isRemote(r) {
			return r, filepath.Join(dir, filepath.Base(k.file))
		}
		if r, in := l.remoteIn(filepath.Join(dir, r), seen); r != "" {
			return r, in
		}
	}
	return "", ""
}

// isRemote reports what kustomize fetches rather than reads: a URL, or a git
// repository spelled as kustomize accepts one.
func isRemote(r string) bool {
	return strings.Contains(r, "://") || strings.HasPrefix(r, "git@") || strings.Contains(r, "?ref=") ||
		strings.HasPrefix(r, "github.com/") || strings.HasPrefix(r, "gitlab.com/") || strings.HasPrefix(r, "bitbucket.org/")
}

// withoutUser is a URL without the credentials it may carry.
func withoutUser(r string) string {
	if u, err := url.Parse(r); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return r
}
