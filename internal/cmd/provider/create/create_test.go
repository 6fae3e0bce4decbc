package create

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// fakeStore is the payments example in memory, with the provider writes recorded; it can
// be told to refuse the ProviderConfig (as a webhook or RBAC would) and the Secret delete.
type fakeStore struct {
	*storetest.Store
	mode      string
	secrets   map[string]map[string][]byte
	calls     []string
	refusePC  error
	refuseDel error
}

var _ store.Store = (*fakeStore)(nil)

func newFake(t *testing.T, mode string) *fakeStore {
	return &fakeStore{Store: storetest.Payments(t, "olivia@example.com"), mode: mode, secrets: map[string]map[string][]byte{}}
}

func (s *fakeStore) Kind() store.Kind { return store.Kind(s.mode) }

func (s *fakeStore) CreateSecret(_ context.Context, sec *corev1.Secret) (store.Result, error) {
	s.calls = append(s.calls, "CreateSecret "+sec.Namespace+"/"+sec.Name)
	key := sec.Namespace + "/" + sec.Name
	if _, ok := s.secrets[key]; ok {
		return store.Result{}, apierrors.NewAlreadyExists(schema.GroupResource{Resource: "secrets"}, sec.Name)
	}
	s.secrets[key] = sec.Data
	return store.Result{Location: "server"}, nil
}

func (s *fakeStore) DeleteSecret(_ context.Context, ns, name string) (store.Result, error) {
	s.calls = append(s.calls, "DeleteSecret "+ns+"/"+name)
	if s.refuseDel != nil {
		return store.Result{}, s.refuseDel
	}
	delete(s.secrets, ns+"/"+name)
	return store.Result{}, nil
}

func (s *fakeStore) SecretKeys(_ context.Context, ns, name string) ([]string, error) {
	data, ok := s.secrets[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
	}
	var keys []string
	for k := range data {
		keys = append(keys, k)
	}
	return keys, nil
}

func (s *fakeStore) ReplaceSecretData(_ context.Context, ns, name string, data map[string][]byte) (store.Result, error) {
	s.secrets[ns+"/"+name] = data
	return store.Result{}, nil
}

func (s *fakeStore) CreateProviderConfig(_ context.Context, pc *v1alpha1.ProviderConfig) (store.Result, error) {
	s.calls = append(s.calls, "CreateProviderConfig "+pc.Namespace+"/"+pc.Name)
	if s.refusePC != nil {
		return store.Result{}, s.refusePC
	}
	s.ProviderConfigs = append(s.ProviderConfigs, *pc.DeepCopy())
	return store.Result{Location: "server"}, nil
}

func (s *fakeStore) DeleteProviderConfig(context.Context, string, string) (store.Result, error) {
	return store.Result{}, nil
}

type result struct {
	code           int
	err            error
	stdout, stderr string
}

// exec runs provider create over s with args, as olivia.
func exec(t *testing.T, s store.Store, args ...string) result {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &factory.Factory{
		IOStreams: ios,
		Options:   &factory.GlobalOptions{Output: "table", As: "olivia@example.com"},
		Now:       func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) },
		NewStore:  func(context.Context, *factory.Factory) (store.Store, error) { return s, nil },
	}
	cmd := NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	code := cmdutil.CodeOf(err)
	if code == cmdutil.ExitFailure && err != nil {
		code = cmdutil.CodeOfAPI(err)
	}
	return result{code: code, err: err, stdout: out.String(), stderr: errOut.String()}
}

func credsFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "aws.env")
	if err := os.WriteFile(p, []byte("accessKeyID=AKIAROLLBACK\nsecretAccessKey=rollback-s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var webhookDenial = apierrors.NewForbidden(v1alpha1.Resource("providerconfigs"), "aws", errors.New(`admission webhook "vproviderconfig.kb.io" denied the request: no`))

// The ProviderConfig is refused after the Secret was created: the Secret is deleted again,
// the server's error is what the command fails with, and no value is shown.
func TestRollbackWhenProviderConfigRefused(t *testing.T) {
	for _, mode := range []string{"live"} {
		t.Run(mode, func(t *testing.T) {
			s := newFake(t, mode)
			s.refusePC = webhookDenial
			r := exec(t, s, "aws", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", credsFile(t))
			if r.code != cmdutil.ExitDenied || !errors.Is(r.err, webhookDenial) {
				t.Fatalf("exit %d: %v", r.code, r.err)
			}
			want := []string{
				"CreateSecret butler-system/aws-credentials",
				"CreateProviderConfig butler-system/aws",
				"DeleteSecret butler-system/aws-credentials",
			}
			if !reflect.DeepEqual(s.calls, want) {
				t.Errorf("calls %q, want %q", s.calls, want)
			}
			if len(s.secrets) != 0 {
				t.Errorf("secrets left: %d", len(s.secrets))
			}
			if r.stderr != "Secret butler-system/aws-credentials deleted again: the ProviderConfig was not created\n" {
				t.Errorf("stderr %q", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			assertNoValues(t, r)
		})
	}
}

// When the rollback fails too, the error says which Secret is left, and keeps the first
// error's exit code.
func TestRollbackFailureNamesTheSecret(t *testing.T) {
	s := newFake(t, "live")
	s.refusePC = webhookDenial
	s.refuseDel = errors.New("connection refused")
	r := exec(t, s, "aws", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", credsFile(t))
	if r.code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if msg := r.err.Error(); !strings.Contains(msg, "the Secret butler-system/aws-credentials created before it could not be deleted again (connection refused): delete it by hand") {
		t.Errorf("error %q", msg)
	}
	assertNoValues(t, r)
}

// Nothing is written when a check fails, and a Secret that was there before is never the
// one a rollback deletes: an existing Secret stops the create before any write.
func TestNothingWrittenWhenChecksFail(t *testing.T) {
	s := newFake(t, "live")
	s.secrets["butler-system/aws-credentials"] = map[string][]byte{"accessKeyID": []byte("x"), "secretAccessKey": []byte("y")}
	for _, args := range [][]string{
		{"aws", "--provider", "aws", "--credentials-env-file", credsFile(t)},                                   // region missing
		{"aws", "--provider", "aws", "--region", "r", "--credentials-from-file", "kubeconfig=" + credsFile(t)}, // keys missing
		{"aws", "--provider", "aws", "--region", "r", "--credentials-env-file", credsFile(t)},                  // Secret exists
		{"aws", "--provider", "aws", "--region", "r", "--team", "nope", "--credentials-env-file", credsFile(t)},
	} {
		r := exec(t, s, args...)
		if r.code == 0 {
			t.Errorf("%q: exit 0", args)
		}
		assertNoValues(t, r)
	}
	if len(s.calls) != 0 {
		t.Errorf("writes: %q", s.calls)
	}
}

func TestCreated(t *testing.T) {
	s := newFake(t, "live")
	r := exec(t, s, "aws", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", credsFile(t))
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if want := "secret/aws-credentials created\nproviderconfig.butler.butlerlabs.dev/aws created\n"; r.stdout != want {
		t.Errorf("stdout %q", r.stdout)
	}
	if got := string(s.secrets["butler-system/aws-credentials"]["secretAccessKey"]); got != "rollback-s3cret" {
		t.Errorf("secret value %q", got)
	}
	pc := s.ProviderConfigs[len(s.ProviderConfigs)-1]
	if pc.Namespace != "butler-system" || pc.Spec.CredentialsRef != (v1alpha1.SecretReference{Name: "aws-credentials", Namespace: "butler-system"}) {
		t.Errorf("created %s/%s with %+v", pc.Namespace, pc.Name, pc.Spec.CredentialsRef)
	}
	assertNoValues(t, r)
}

func assertNoValues(t *testing.T, r result) {
	t.Helper()
	msg := ""
	if r.err != nil {
		msg = r.err.Error()
	}
	for _, v := range []string{"AKIAROLLBACK", "rollback-s3cret"} {
		if strings.Contains(r.stdout+r.stderr+msg, v) {
			t.Errorf("output shows the value %q", v)
		}
	}
}

// On manifests the credentials go to the --credentials-out file and no Secret to the
// store; when the ProviderConfig is refused, the file goes again and nothing is shown.
func TestManifestsCredentialsOutRolledBack(t *testing.T) {
	s := newFake(t, "manifests")
	s.refusePC = webhookDenial
	outFile := filepath.Join(t.TempDir(), "aws-credentials.yaml")
	r := exec(t, s, "aws", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", credsFile(t), "--credentials-out", outFile)
	if r.code != cmdutil.ExitDenied || !errors.Is(r.err, webhookDenial) {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	if want := []string{"CreateProviderConfig butler-system/aws"}; !reflect.DeepEqual(s.calls, want) {
		t.Errorf("calls %q, want %q", s.calls, want)
	}
	if _, err := os.Stat(outFile); !os.IsNotExist(err) {
		t.Errorf("the credentials file is left behind: %v", err)
	}
	if r.stderr != "" || r.stdout != "" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
}
