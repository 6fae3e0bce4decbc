package providerutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// OutFlag names the file the credentials go to when working on manifests: a GitOps tree
// never holds them in plain text (butlerctl check refuses that).
const OutFlag = "credentials-out"

// NeedOut is the usage error of new credentials on manifests without --credentials-out.
func NeedOut() error {
	return cmdutil.UsageError("working on manifests, the credentials do not go into the tree: name a file outside it with --%s FILE (written mode 0600), then seal or encrypt it and commit that", OutFlag)
}

// WriteOut writes the credentials Secret to path, mode 0600, refusing a path inside the
// manifests or one that exists; the returned note says how to seal or encrypt it.
func WriteOut(path string, manifests []string, secret *corev1.Secret) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	for _, m := range manifests {
		root, err := filepath.Abs(m)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		if rel, err := filepath.Rel(root, abs); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return "", cmdutil.UsageError("--%s %s is inside the manifests (%s): credentials never go into the tree; name a file outside it", OutFlag, path, m)
		}
	}
	data, err := yaml.Marshal(secret)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", cmdutil.UsageError("--%s %s already exists: name a new file (it is never overwritten)", OutFlag, path)
	}
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", err
	}
	return fmt.Sprintf("the credentials are in %s (mode 0600), not in the manifests: seal it (kubeseal --format yaml < %s > %s-sealedsecret.yaml) or encrypt it (sops --encrypt), commit that next to the ProviderConfig, and delete %s\n",
		path, path, secret.Name, path), nil
}
