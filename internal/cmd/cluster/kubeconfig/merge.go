package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// MaxKubeconfigSize bounds the kubeconfig read before a merge.
const MaxKubeconfigSize = 16 << 20

// MergeTarget is the kubeconfig a merge writes to: --file when given, else the first file
// of KUBECONFIG, else ~/.kube/config (kubectl's choice for writes).
func MergeTarget(file string) string {
	if file != "" {
		return file
	}
	for _, p := range filepath.SplitList(os.Getenv(clientcmd.RecommendedConfigPathEnvVar)) {
		if p != "" {
			return p
		}
	}
	return clientcmd.RecommendedHomeFile
}

// Merge is what MergeInto puts in the file: one cluster, one user and one context, all
// named Name, from the admin kubeconfig's current context (its first context when none is
// current).
type Merge struct {
	Name       string
	SetCurrent bool
	Force      bool
}

// MergeInto merges the tenant kubeconfig into path. It first takes the locks kubectl
// takes to edit a kubeconfig (FILE.lock of every file of KUBECONFIG, and of path), so that
// concurrent merges, and kubectl, take turns and none loses another's entries. The file is
// edited in place (pkg/manifest: the cluster, user and context entries named m.Name are
// replaced or appended, every other byte stays, comments included) and written through
// fileio: through a symlink to its file, atomically, keeping its mode, owner and group; a
// new file is created 0600. An entry named m.Name that belongs to another cluster (another
// server or CA, or a context pointing elsewhere), in path or in any other file of
// KUBECONFIG when path is one of them (where it would shadow or be shadowed), is refused
// unless m.Force. It reports whether the file changed. Errors never quote the
// kubeconfigs: they hold credentials.
func MergeInto(path string, tenant []byte, m Merge) (bool, error) {
	entries, err := tenantEntries(tenant, m.Name)
	if err != nil {
		return false, err
	}
	others := otherKubeconfigs(path)
	unlock, err := fileio.Lock(context.Background(), append([]string{path}, others...), LockTimeout)
	if err != nil {
		return false, err
	}
	defer unlock()
	f, doc, err := readKubeconfig(path)
	if err != nil {
		return false, err
	}
	if err := checkConflicts(doc, entries, m, path); err != nil {
		return false, err
	}
	for _, o := range others {
		_, odoc, err := readKubeconfig(o)
		if err != nil {
			return false, err
		}
		if err := checkConflicts(odoc, entries, m, o+" (in KUBECONFIG)"); err != nil {
			return false, err
		}
	}
	exists := f.Exists && len(strings.TrimSpace(string(f.Orig))) > 0
	if !exists {
		doc = map[string]any{"apiVersion": "v1", "kind": "Config"}
	}
	before, _ := yaml.Marshal(doc)
	for _, list := range []string{"clusters", "users", "contexts"} {
		doc[list] = upsert(asList(doc[list]), entries[list])
	}
	if m.SetCurrent {
		doc["current-context"] = m.Name
	}
	after, _ := yaml.Marshal(doc)
	if exists && string(before) == string(after) {
		return false, nil
	}
	obj := &unstructured.Unstructured{Object: doc}
	c := manifest.Change{File: path, Obj: obj, Mode: FileMode}
	if exists {
		c = manifest.Change{Source: &manifest.Source{File: path}, Obj: obj}
	} else if err := os.MkdirAll(filepath.Dir(f.Real), 0o700); err != nil {
		return false, err
	}
	if err := manifest.Write([]manifest.Change{c}); err != nil {
		return false, fmt.Errorf("merging into %s: %w", path, err)
	}
	time.Sleep(KubectlGrace)
	return true, nil
}

// KubectlGrace is how long a merge keeps the lock after its write. kubectl reads the
// kubeconfig before it takes the lock, and then removes the entries that appeared in
// between (it takes them for ones the user deleted); it fails, instead, when it finds the
// lock taken. Holding the lock a moment after the write makes a kubectl that read the old
// text fail (to be run again) rather than undo the merge.
var KubectlGrace = 250 * time.Millisecond

// LockTimeout is how long a merge waits for another writer of the kubeconfig.
const LockTimeout = fileio.LockTimeout

// otherKubeconfigs are the files of KUBECONFIG other than path, when path is one of them
// (compared with symlinks resolved): the files whose names kubectl merges with path's.
func otherKubeconfigs(path string) []string {
	var files []string
	for _, p := range filepath.SplitList(os.Getenv(clientcmd.RecommendedConfigPathEnvVar)) {
		if p != "" {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil
	}
	key := func(p string) string {
		f, err := fileio.Open(p, 0, 0)
		if err != nil {
			return p
		}
		return f.Real
	}
	target := key(path)
	var others []string
	in := false
	seen := map[string]bool{target: true}
	for _, p := range files {
		k := key(p)
		if k == target {
			in = true
		}
		if !seen[k] {
			seen[k] = true
			others = append(others, p)
		}
	}
	if !in {
		return nil
	}
	return others
}

// readKubeconfig reads a kubeconfig for a merge: missing or empty, it has no entries.
func readKubeconfig(path string) (*fileio.File, map[string]any, error) {
	f, err := fileio.Open(path, FileMode, MaxKubeconfigSize)
	if err != nil {
		return nil, nil, err
	}
	doc := map[string]any{}
	if !f.Exists || len(strings.TrimSpace(string(f.Orig))) == 0 {
		return f, doc, nil
	}
	if _, lerr := clientcmd.Load(f.Orig); lerr != nil || yaml.Unmarshal(f.Orig, &doc) != nil {
		return nil, nil, cmdutil.UsageError("%s is not a kubeconfig this tool can read; nothing was written", path)
	}
	return f, doc, nil
}

// tenantEntries picks the cluster, user and context of the tenant kubeconfig's current
// context and renames them to name.
func tenantEntries(tenant []byte, name string) (map[string]map[string]any, error) {
	cfg, err := clientcmd.Load(tenant)
	bad := errors.New("the admin kubeconfig in the Secret is not a kubeconfig")
	if err != nil {
		return nil, bad
	}
	ctxName := cfg.CurrentContext
	if _, ok := cfg.Contexts[ctxName]; !ok {
		ctxName = ""
	}
	var raw map[string]any
	if yaml.Unmarshal(tenant, &raw) != nil {
		return nil, bad
	}
	ctx := find(asList(raw["contexts"]), ctxName)
	if ctxName == "" {
		if l := asList(raw["contexts"]); len(l) > 0 {
			ctx, _ = l[0].(map[string]any)
		}
	}
	ctxBody, _ := ctx["context"].(map[string]any)
	if ctxBody == nil {
		return nil, errors.New("the admin kubeconfig in the Secret has no context")
	}
	cl, _ := find(asList(raw["clusters"]), str(ctxBody["cluster"]))["cluster"].(map[string]any)
	us, _ := find(asList(raw["users"]), str(ctxBody["user"]))["user"].(map[string]any)
	if cl == nil || us == nil {
		return nil, errors.New("the admin kubeconfig in the Secret names a cluster or user it does not have")
	}
	newCtx := map[string]any{"cluster": name, "user": name}
	if ns := str(ctxBody["namespace"]); ns != "" {
		newCtx["namespace"] = ns
	}
	return map[string]map[string]any{
		"clusters": {"name": name, "cluster": cl},
		"users":    {"name": name, "user": us},
		"contexts": {"name": name, "context": newCtx},
	}, nil
}

// checkConflicts refuses to replace entries of another cluster without force: a cluster
// entry with another server or CA, or a context pointing at other entries. A user entry
// is replaced along with its cluster (fresh credentials for the same cluster), but one
// without a matching cluster entry beside it is someone else's.
func checkConflicts(doc map[string]any, entries map[string]map[string]any, m Merge, path string) error {
	if m.Force {
		return nil
	}
	refuse := func(what string) error {
		return fmt.Errorf("%s already has %s named %q for another cluster: pass --force to replace it, or --context-name to merge under another name", path, what, m.Name)
	}
	oldCluster := find(asList(doc["clusters"]), m.Name)
	if oldCluster != nil {
		o, _ := oldCluster["cluster"].(map[string]any)
		n := entries["clusters"]["cluster"].(map[string]any)
		for _, k := range []string{"server", "certificate-authority-data", "certificate-authority"} {
			if !reflect.DeepEqual(o[k], n[k]) {
				return refuse("a cluster")
			}
		}
	}
	if c := find(asList(doc["contexts"]), m.Name); c != nil {
		body, _ := c["context"].(map[string]any)
		if str(body["cluster"]) != m.Name || str(body["user"]) != m.Name {
			return refuse("a context")
		}
	}
	if oldCluster == nil && find(asList(doc["users"]), m.Name) != nil {
		return refuse("a user")
	}
	return nil
}

// upsert replaces the entry with entry's name, keeping its place, or appends entry.
func upsert(list []any, entry map[string]any) []any {
	for i, e := range list {
		if m, ok := e.(map[string]any); ok && str(m["name"]) == str(entry["name"]) {
			list[i] = entry
			return list
		}
	}
	return append(list, entry)
}

func find(list []any, name string) map[string]any {
	for _, e := range list {
		if m, ok := e.(map[string]any); ok && str(m["name"]) == name {
			return m
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
