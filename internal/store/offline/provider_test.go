package offline

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func providerStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	pc := `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata:
  name: keep
  namespace: butler-system
spec:
  provider: aws
  credentialsRef:
    name: keep-credentials
  aws:
    region: us-east-1
`
	if err := os.WriteFile(filepath.Join(dir, "provider.yaml"), []byte(pc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load([]string{dir}, nil, "olivia@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func secret(name string, data map[string]string) *corev1.Secret {
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "butler-system"}, Data: map[string][]byte{}}
	for k, v := range data {
		sec.Data[k] = []byte(v)
	}
	return sec
}

func TestSecretLifecycle(t *testing.T) {
	s, dir := providerStore(t)
	ctx := context.Background()
	res, err := s.CreateSecret(ctx, secret("aws-credentials", map[string]string{"accessKeyID": "AKIA", "secretAccessKey": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "secrets", "aws-credentials.yaml")
	if res.Location != file {
		t.Errorf("location %q", res.Location)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), "s3cret") || !strings.Contains(string(b), "secretAccessKey: czNjcmV0") {
		t.Errorf("file:\n%s", b)
	}
	if _, err := s.CreateSecret(ctx, secret("aws-credentials", map[string]string{"a": "b"})); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v", err)
	}
	keys, err := s.SecretKeys(ctx, "butler-system", "aws-credentials")
	if err != nil || !reflect.DeepEqual(keys, []string{"accessKeyID", "secretAccessKey"}) {
		t.Errorf("keys %v %v", keys, err)
	}
	if _, err := s.SecretKeys(ctx, "payments", "aws-credentials"); !apierrors.IsNotFound(err) {
		t.Errorf("other namespace: %v", err)
	}

	if _, err := s.ReplaceSecretData(ctx, "butler-system", "aws-credentials", map[string][]byte{"token": []byte("t0ken")}); err != nil {
		t.Fatal(err)
	}
	if keys, _ := s.SecretKeys(ctx, "butler-system", "aws-credentials"); !reflect.DeepEqual(keys, []string{"token"}) {
		t.Errorf("after replace: %v", keys)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replace %04o", fi.Mode().Perm())
	}

	if _, err := s.DeleteSecret(ctx, "butler-system", "aws-credentials"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "secrets")); !os.IsNotExist(err) {
		t.Errorf("secrets/ left behind: %v", err)
	}
	if _, err := s.DeleteSecret(ctx, "butler-system", "aws-credentials"); !apierrors.IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
}

func TestProviderConfigLifecycle(t *testing.T) {
	s, dir := providerStore(t)
	ctx := context.Background()
	pc := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "gcp", Namespace: "butler-system"},
		Spec: v1alpha1.ProviderConfigSpec{
			Provider:       v1alpha1.ProviderGCP,
			CredentialsRef: v1alpha1.SecretReference{Name: "gcp-credentials"},
			GCP:            &v1alpha1.GCPConfig{ProjectID: "p", Region: "r"},
		},
	}
	if _, err := s.CreateProviderConfig(ctx, pc); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateProviderConfig(ctx, pc); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v", err)
	}
	if got, err := s.GetProviderConfig(ctx, "butler-system", "gcp"); err != nil || got.Spec.GCP.ProjectID != "p" {
		t.Errorf("read back: %v", err)
	}
	if _, err := s.DeleteProviderConfig(ctx, "butler-system", "gcp"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "providers")); !os.IsNotExist(err) {
		t.Errorf("providers/ left behind: %v", err)
	}
	// The other provider's file is left as it was.
	if _, err := s.GetProviderConfig(ctx, "butler-system", "keep"); err != nil {
		t.Errorf("keep: %v", err)
	}
	if _, err := s.DeleteProviderConfig(ctx, "butler-system", "keep"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "provider.yaml")); !os.IsNotExist(err) {
		t.Errorf("provider.yaml with nothing left in it: %v", err)
	}
}

// A Secret never goes into a shared file: with a manifests file (not a directory) it is refused.
func TestSecretNeedsADirectory(t *testing.T) {
	_, dir := providerStore(t)
	s, err := Load([]string{filepath.Join(dir, "provider.yaml")}, nil, "olivia@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateSecret(context.Background(), secret("x", map[string]string{"a": "b"}))
	if !storeerr.IsMissing(err, storeerr.NeedDirectory) || !strings.Contains(err.Error(), "a Secret gets a file of its own") {
		t.Errorf("got %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "provider.yaml"))
	if strings.Contains(string(b), "Secret") {
		t.Error("written into the shared file")
	}
}
