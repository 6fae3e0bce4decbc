package offline

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// This file implements store.Providers on manifests. A GitOps tree keeps a provider's
// credentials as a Secret manifest (until it is sealed or encrypted), so a created Secret
// is written: always to a file of its own, DIR/secrets/NAME.yaml with mode 0600, its data
// base64-encoded as the API holds it, and never into a file shared with other objects.

var secretsResource = schema.GroupResource{Resource: "secrets"}

// secretFileMode is the mode of a Secret file the store creates.
const secretFileMode fs.FileMode = 0o600

// CreateSecret implements store.Providers.
func (s *Store) CreateSecret(_ context.Context, secret *corev1.Secret) (store.Result, error) {
	if s.findSecret(secret.Namespace, secret.Name) != nil {
		return store.Result{}, apierrors.NewAlreadyExists(secretsResource, secret.Name)
	}
	dir := s.paths[0]
	if dir == manifest.Stdin {
		return store.Result{}, storeerr.Missing(storeerr.NeedDirectory, "cannot write: the manifests came from stdin")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return store.Result{}, err
	}
	if !fi.IsDir() {
		return store.Result{}, storeerr.Missing(storeerr.NeedDirectory, "cannot write Secret %s/%s into %s: a Secret gets a file of its own, DIR/secrets/%s.yaml",
			secret.Namespace, secret.Name, dir, secret.Name)
	}
	file := filepath.Join(dir, "secrets", secret.Name+".yaml")
	if fi, err := os.Lstat(file); err == nil {
		// An empty file holds no Secret: one left by an interrupted create of an earlier
		// version (which made the file before writing it) must not block the retry.
		if !fi.Mode().IsRegular() || fi.Size() > 0 {
			return store.Result{}, fmt.Errorf("cannot write %s: %w", file, storeerr.ErrFileExists)
		}
		if !s.dryRun {
			if err := os.Remove(file); err != nil {
				return store.Result{}, err
			}
		}
	}
	// The file appears whole or not at all, mode 0600 from its first byte (manifest.Write
	// writes a temporary file and links it into place); on failure nothing is left, the
	// secrets/ directory included if this made it.
	if err := s.write([]manifest.Change{{File: file, Obj: secretObject(secret), Mode: secretFileMode}}); err != nil {
		return store.Result{}, err
	}
	if !s.dryRun {
		s.reload(file)
	}
	return store.Result{Location: file}, nil
}

// secretObject is the Secret as a manifest holds it: data base64-encoded, no stringData.
func secretObject(secret *corev1.Secret) *unstructured.Unstructured {
	md := map[string]any{"name": secret.Name}
	if secret.Namespace != "" {
		md["namespace"] = secret.Namespace
	}
	if len(secret.Labels) > 0 {
		labels := map[string]any{}
		for k, v := range secret.Labels {
			labels[k] = v
		}
		md["labels"] = labels
	}
	typ := secret.Type
	if typ == "" {
		typ = corev1.SecretTypeOpaque
	}
	data := map[string][]byte{}
	for k, v := range secret.Data {
		data[k] = v
	}
	for k, v := range secret.StringData {
		data[k] = []byte(v)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   md,
		"type":       string(typ),
		"data":       encodeData(data),
	}}
}

func encodeData(data map[string][]byte) map[string]any {
	out := make(map[string]any, len(data))
	for k, v := range data {
		out[k] = base64.StdEncoding.EncodeToString(v)
	}
	return out
}

// findSecret finds a core/v1 Secret in the manifests (one without a namespace matches any).
func (s *Store) findSecret(namespace, name string) *manifest.Object {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i := range s.set.Objects {
		o := &s.set.Objects[i]
		if o.Kind == "Secret" && o.APIVersion == "v1" && o.Name == name && (o.Namespace == namespace || o.Namespace == "") {
			c := *o
			return &c
		}
	}
	return nil
}

// DeleteSecret implements store.Providers.
func (s *Store) DeleteSecret(_ context.Context, namespace, name string) (store.Result, error) {
	o := s.findSecret(namespace, name)
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(secretsResource, name)
	}
	return s.deleteDocument(o, "secret")
}

// SecretKeys implements store.Providers: the names under data and stringData.
func (s *Store) SecretKeys(_ context.Context, namespace, name string) ([]string, error) {
	o := s.findSecret(namespace, name)
	if o == nil {
		return nil, apierrors.NewNotFound(secretsResource, name)
	}
	u, ok := o.Obj.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewNotFound(secretsResource, name)
	}
	seen := map[string]bool{}
	var keys []string
	for _, field := range []string{"data", "stringData"} {
		m, _ := u.Object[field].(map[string]any)
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// ReplaceSecretData implements store.Providers: the Secret's document is edited in place
// (data replaced, stringData removed); the file keeps its mode and the other documents.
func (s *Store) ReplaceSecretData(_ context.Context, namespace, name string, data map[string][]byte) (store.Result, error) {
	o := s.findSecret(namespace, name)
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(secretsResource, name)
	}
	u, ok := o.Obj.(*unstructured.Unstructured)
	if !ok {
		return store.Result{}, apierrors.NewNotFound(secretsResource, name)
	}
	src := o.Source
	if src.File == manifest.Stdin {
		return store.Result{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: secret %q came from stdin", name)
	}
	updated := u.DeepCopy()
	delete(updated.Object, "stringData")
	updated.Object["data"] = encodeData(data)
	if err := s.write([]manifest.Change{{Source: &src, Obj: updated}}); err != nil {
		return store.Result{}, err
	}
	s.reload(src.File)
	return store.Result{Location: src.File}, nil
}

// CreateProviderConfig implements store.Providers: a new file providers/NAME.yaml under the
// first --manifests directory, or a further document of the --manifests file.
func (s *Store) CreateProviderConfig(ctx context.Context, pc *v1alpha1.ProviderConfig) (store.Result, error) {
	if _, err := s.GetProviderConfig(ctx, pc.Namespace, pc.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("providerconfigs"), pc.Name)
	}
	file, err := s.target("providers", pc.Name)
	if err != nil {
		return store.Result{}, err
	}
	if err := s.write([]manifest.Change{{File: file, Obj: pc}}); err != nil {
		return store.Result{}, err
	}
	s.reload(file)
	return store.Result{Location: file}, nil
}

// DeleteProviderConfig implements store.Providers.
func (s *Store) DeleteProviderConfig(_ context.Context, namespace, name string) (store.Result, error) {
	s.mu.RLock()
	o := s.set.Find(v1alpha1.KindProviderConfig, namespace, name)
	var c manifest.Object
	if o != nil {
		c = *o
	}
	s.mu.RUnlock()
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
	}
	return s.deleteDocument(&c, "providerconfig")
}

// deleteDocument removes an object's document from its file, and the file when nothing
// but blank lines, separators and comments is left.
func (s *Store) deleteDocument(o *manifest.Object, what string) (store.Result, error) {
	src := o.Source
	if src.File == manifest.Stdin {
		return store.Result{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: %s %q came from stdin", what, o.Name)
	}
	if err := s.write([]manifest.Change{{Source: &src, Delete: true}}); err != nil {
		return store.Result{}, err
	}
	if s.dryRun {
		return store.Result{Location: src.File}, nil
	}
	if b, err := fileio.ReadFile(src.File, manifest.DefaultMaxFileBytes); err == nil && !hasObjects(string(b)) {
		if err := os.Remove(src.File); err != nil {
			return store.Result{}, err
		}
		// A directory the store made for such files (secrets/, providers/) goes when
		// empty; Remove leaves a directory with anything in it alone.
		if dir := filepath.Dir(src.File); filepath.Clean(dir) != filepath.Clean(s.paths[0]) {
			switch filepath.Base(dir) {
			case "secrets", "providers", "policies":
				os.Remove(dir)
			}
		}
	}
	s.reload(src.File)
	return store.Result{Location: src.File}, nil
}

// hasObjects reports whether manifest text holds anything but blank lines, document
// separators and comments.
func hasObjects(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "---" || l == "..." || strings.HasPrefix(l, "#") {
			continue
		}
		return true
	}
	return false
}

// reload reads a file the store just wrote back into the set, so that what the process
// reads next (another write, a rollback) sees the file as it now is. A file that no
// longer exists leaves no objects.
func (s *Store) reload(file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadHeld(file)
}

// reloadHeld is reload for a caller that holds s.mu.
func (s *Store) reloadHeld(file string) {
	var objs []manifest.Object
	if b, err := fileio.ReadFile(file, manifest.DefaultMaxFileBytes); err == nil {
		objs, _ = manifest.Decode(file, b)
	}
	s.set.ReplaceFile(file, objs)
}
