package rotatecredentials

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// secrets is a store that is rotate-credentials' Store and nothing more: the worked
// example's reads, a live cluster's kind, and Secrets it holds by "namespace/name" whose
// keys it tells and whose data it replaces. It has no Server: a rotation needs none.
type secrets struct {
	store.Reader
	data map[string]map[string][]byte
}

var _ Store = (*secrets)(nil)

func (*secrets) Kind() store.Kind { return store.Live }

func (s *secrets) SecretKeys(_ context.Context, ns, name string) ([]string, error) {
	d, ok := s.data[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
	}
	var keys []string
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

func (s *secrets) ReplaceSecretData(_ context.Context, ns, name string, data map[string][]byte) (store.Result, error) {
	s.data[ns+"/"+name] = data
	return store.Result{}, nil
}

func rotate(t *testing.T, s Store, creds string) (string, string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "creds.yaml")
	if err := os.WriteFile(file, []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	deps, out, errOut := cmdtest.Deps(s, Spec, "")
	err := run(context.Background(), &Options{FindOptions: providerutil.FindOptions[Store]{Deps: deps, Name: "harvester-prod"}, Creds: providerutil.CredentialFlags{File: file}})
	return out.String(), errOut.String(), err
}

// run through the command's own Store: the Secret's data is replaced whole (a key not in
// the new credentials goes, and is named), and no value is printed; a Secret that is not
// there is exit 3 and nothing is written.
func TestRunReplacesTheSecretThroughItsStore(t *testing.T) {
	fake := &secrets{Reader: storetest.Payments(t, "olivia@example.com"),
		data: map[string]map[string][]byte{"butler-system/harvester-credentials": {"kubeconfig": []byte("old"), "stale": []byte("x")}}}
	stdout, stderr, err := rotate(t, fake, "kubeconfig: new-secret-value\n")
	if err != nil {
		t.Fatal(err)
	}
	got := fake.data["butler-system/harvester-credentials"]
	if len(got) != 1 || string(got["kubeconfig"]) != "new-secret-value" {
		t.Errorf("Secret data now %q", got)
	}
	if !strings.Contains(stdout, "secret/harvester-credentials credentials replaced (keys: kubeconfig); removed keys: stale") || strings.Contains(stdout+stderr, "new-secret-value") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}

	fake.data = map[string]map[string][]byte{}
	if _, _, err := rotate(t, fake, "kubeconfig: v\n"); cmdutil.CodeOf(err) != cmdutil.ExitNotFound || !strings.Contains(err.Error(), "not found on the cluster") || len(fake.data) != 0 {
		t.Errorf("no Secret: exit %d: %v; data %v", cmdutil.CodeOf(err), err, fake.data)
	}
}
