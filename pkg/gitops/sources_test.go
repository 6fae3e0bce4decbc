package gitops

import (
	"errors"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

const bootstrapSync = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: https://example.com/platform.git, ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec:
  interval: 10m
  path: ./clusters/mgmt
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`

// fluxKust is a Flux Kustomization of namespace ns ("" for none) with a sourceRef.
func fluxKust(name, ns, ref string) string {
	meta := "{name: " + name + "}"
	if ns != "" {
		meta = "{name: " + name + ", namespace: " + ns + "}"
	}
	return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: ` + meta + `
spec:
  interval: 10m
  path: ./apps/` + name + `
  prune: true
  sourceRef: ` + ref + "\n"
}

// TestSources: a Flux Kustomization renders from this repository only when its source is
// the bootstrap sync's GitRepository (or one of Options.Sources); a sourceRef without
// namespace is the Kustomization's own namespace; one written without a namespace matches
// by name. A tenant's GitRepository and Kustomization of one name are not a bootstrap sync.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clusters/mgmt/flux-system/gotk-sync.yaml"), []byte(bootstrapSync))
	entries := map[string]string{
		"own":         fluxKust("own", "flux-system", "{kind: GitRepository, name: flux-system}"),
		"own-nons":    fluxKust("own-nons", "", "{kind: GitRepository, name: flux-system}"),
		"other-ns":    fluxKust("other-ns", "apps", "{kind: GitRepository, name: flux-system}"),
		"oci":         fluxKust("oci", "flux-system", "{kind: OCIRepository, name: flux-system}"),
		"tenant":      fluxKust("tenant", "tenant", "{kind: GitRepository, name: tenant}"),
		"tenant-repo": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: tenant, namespace: tenant}\nspec: {interval: 1m, url: https://example.com/t.git}\n",
	}
	for name, text := range entries {
		writeFile(t, filepath.Join(dir, "clusters/mgmt", name+".yaml"), []byte(text))
		writeFile(t, filepath.Join(dir, "apps", name, "ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: "+name+"}\n"))
	}
	skipped := func(opts Options) []string {
		t.Helper()
		tree, err := Load([]string{dir}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range tree.Elsewhere {
			names = append(names, e.Object.Name)
		}
		sort.Strings(names)
		return names
	}
	if got, want := skipped(Options{}), []string{"oci", "other-ns", "tenant"}; !reflect.DeepEqual(got, want) {
		t.Errorf("not rendered: %v, want %v", got, want)
	}
	if got, want := skipped(Options{Sources: []string{"tenant/tenant"}}), []string{"oci", "other-ns"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with tenant/tenant a source: not rendered %v, want %v", got, want)
	}
}

// TestRemoteSources: a GitRepository whose spec.url is a remote's of the git repository
// the tree is in is this repository, however Flux users spell the URL; its Kustomization
// then renders from the tree, and a note says why and names the ref Flux follows. Another
// repository's URL is not this repository.
func TestRemoteSources(t *testing.T) {
	cases := []struct {
		remote, url string
		same        bool
	}{
		{"git@github.com:example/platform.git", "https://github.com/example/platform", true},
		{"git@github.com:example/platform.git", "https://github.com/example/platform.git", true},
		{"git@github.com:example/platform.git", "ssh://git@github.com/example/platform", true},
		{"https://github.com/example/platform", "ssh://git@github.com/example/platform.git", true},
		{"https://github.com/example/platform", "git@github.com:example/platform.git", true},
		{"https://github.com/example/platform.git", "https://github.com/example/platform/", true},
		{"https://github.com/example/platform", "https://GitHub.COM/example/platform", true},
		{"https://github.com/example/platform", "ssh://git@github.com:22/example/platform", true},
		{"https://github.com/example/platform", "https://github.com:443/example/platform", true},
		{"https://x-access-token:secret@github.com/example/platform", "https://github.com/example/platform", true},
		{"git@github.com:example/platform.git", "https://github.com/example/platform-fork", false},
		{"git@github.com:example/platform.git", "https://gitlab.com/example/platform", false},
		{"git@github.com:example/platform.git", "ssh://git@github.com:2222/example/platform", false},
		{"git@github.com:example/platform.git", "https://github.com/other/platform", false},
	}
	for _, c := range cases {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "clusters/mgmt/flux-system/gotk-sync.yaml"), []byte(bootstrapSync))
		writeFile(t, filepath.Join(dir, "clusters/mgmt/apps.yaml"), []byte(fluxKust("apps", "flux-system", "{kind: GitRepository, name: apps}")+
			"---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: apps, namespace: flux-system}\n"+
			"spec: {interval: 1m, url: '"+c.url+"', ref: {branch: staging}}\n"))
		writeFile(t, filepath.Join(dir, "apps/apps/ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n"))
		tree, err := Load([]string{dir}, nil, Options{Remotes: func() ([]Remote, error) { return []Remote{{Name: "origin", URL: c.remote}}, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(tree.Elsewhere) == 0; got != c.same {
			t.Errorf("remote %s, GitRepository %s: taken for this repository %v, want %v", c.remote, c.url, got, c.same)
			continue
		}
		if !c.same {
			if len(tree.RemoteNotes) != 0 {
				t.Errorf("remote %s, GitRepository %s: notes %q", c.remote, c.url, tree.RemoteNotes)
			}
			continue
		}
		if len(tree.RemoteNotes) != 1 || !strings.Contains(tree.RemoteNotes[0], `GitRepository flux-system/apps is this repository`) ||
			!strings.Contains(tree.RemoteNotes[0], `remote "origin"`) || !strings.Contains(tree.RemoteNotes[0], `Flux reads its branch "staging"`) ||
			strings.Contains(tree.RemoteNotes[0], "secret") {
			t.Errorf("remote %s, GitRepository %s: notes %q", c.remote, c.url, tree.RemoteNotes)
		}
	}
}

// TestRemoteSourceWithoutNamespace: a GitRepository written without a namespace (its
// parent decides where it lands) whose URL is a remote's is this repository for the
// Kustomizations that name it.
func TestRemoteSourceWithoutNamespace(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clusters/mgmt/flux-system/gotk-sync.yaml"), []byte(bootstrapSync))
	writeFile(t, filepath.Join(dir, "clusters/mgmt/apps.yaml"), []byte(fluxKust("apps", "flux-system", "{kind: GitRepository, name: apps}")+
		"---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: apps}\nspec: {interval: 1m, url: https://github.com/example/platform}\n"))
	writeFile(t, filepath.Join(dir, "apps/apps/ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n"))
	tree, err := Load([]string{dir}, nil, Options{Remotes: func() ([]Remote, error) {
		return []Remote{{Name: "origin", URL: "git@github.com:example/platform.git"}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Elsewhere) != 0 || len(tree.RemoteNotes) != 1 {
		t.Errorf("not rendered %+v, notes %q", tree.Elsewhere, tree.RemoteNotes)
	}
}

// TestRemotesAskedOnlyForGitRepositories: the remotes (a git process) are asked for only
// when the tree holds a GitRepository, without remotes nothing changes, and remotes that
// cannot be read are a note.
func TestRemotesAskedOnlyForGitRepositories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"))
	asked := 0
	if _, err := Load([]string{dir}, nil, Options{Remotes: func() ([]Remote, error) { asked++; return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	if asked != 0 {
		t.Errorf("remotes asked %d times for a tree without GitRepository", asked)
	}
	writeFile(t, filepath.Join(dir, "clusters/mgmt/flux-system/gotk-sync.yaml"), []byte(bootstrapSync))
	tree, err := Load([]string{dir}, nil, Options{Remotes: func() ([]Remote, error) { asked++; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 || len(tree.RemoteNotes) != 0 {
		t.Errorf("remotes asked %d times, notes %q", asked, tree.RemoteNotes)
	}
	// Remotes that cannot be read are a note, not silence.
	tree, err = Load([]string{dir}, nil, Options{Remotes: func() ([]Remote, error) { return nil, errors.New("git config: dubious ownership") }})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.RemoteNotes) != 1 || !strings.Contains(tree.RemoteNotes[0], "could not be read") || !strings.Contains(tree.RemoteNotes[0], "dubious ownership") {
		t.Errorf("notes %q, want one saying the remotes could not be read", tree.RemoteNotes)
	}
}
