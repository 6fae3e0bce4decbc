package kubeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// existing is a kubeconfig as kubectl writes it, with a comment and two contexts.
const existing = `# my clusters
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: T1RIRVI=
    server: https://other.example.com:6443
  name: other
- cluster:
    server: "https://kind.local:6443"   # quoted on purpose
  name: kind
contexts:
- context:
    cluster: other
    namespace: default
    user: other-user
  name: other
- context:
    cluster: kind
    user: kind
  name: kind
current-context: other
kind: Config
preferences: {}
users:
- name: other-user
  user:
    token: c2VjcmV0
- name: kind
  user:
    client-certificate-data: S0lORA==
`

const tenant = `apiVersion: v1
kind: Config
clusters:
  - name: bob-checkout
    cluster:
      server: https://bob-checkout.payments.example.com:6443
      certificate-authority-data: Q0EgREFUQQ==
users:
  - name: admin
    user:
      client-certificate-data: Q0VSVA==
      client-key-data: S0VZ
contexts:
  - name: admin@bob-checkout
    context: {cluster: bob-checkout, user: admin}
current-context: admin@bob-checkout
`

func TestMergeKeepsOtherEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := MergeInto(path, []byte(tenant), Merge{Name: "payments-bob-checkout"})
	if err != nil || !changed {
		t.Fatalf("MergeInto = %v, %v", changed, err)
	}
	got, _ := os.ReadFile(path)
	// Every line of the file before is there, in order: the merge only added lines.
	rest := string(got)
	for _, l := range strings.SplitAfter(existing, "\n") {
		i := strings.Index(rest, l)
		if i < 0 {
			t.Fatalf("line %q lost or reordered; file now:\n%s", l, got)
		}
		rest = rest[i+len(l):]
	}
	cfg, err := clientcmd.Load(got)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "other" {
		t.Errorf("current context changed to %q without --set-context", cfg.CurrentContext)
	}
	c := cfg.Contexts["payments-bob-checkout"]
	if c == nil || c.Cluster != "payments-bob-checkout" || c.AuthInfo != "payments-bob-checkout" {
		t.Fatalf("context %+v", c)
	}
	if s := cfg.Clusters["payments-bob-checkout"].Server; s != "https://bob-checkout.payments.example.com:6443" {
		t.Errorf("server %q", s)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}

	// Again with --set-context: only current-context changes.
	if _, err := MergeInto(path, []byte(tenant), Merge{Name: "payments-bob-checkout", SetCurrent: true}); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if want := strings.Replace(string(got), "current-context: other\n", "current-context: payments-bob-checkout\n", 1); string(again) != want {
		t.Errorf("--set-context changed more than current-context:\n%s", again)
	}
	// The same merge once more changes nothing.
	if changed, err := MergeInto(path, []byte(tenant), Merge{Name: "payments-bob-checkout", SetCurrent: true}); err != nil || changed {
		t.Errorf("repeat merge = %v, %v", changed, err)
	}
}

func TestMergeRefusesAnotherClustersEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(existing), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := MergeInto(path, []byte(tenant), Merge{Name: "other"})
	if err == nil || !strings.Contains(err.Error(), `already has a cluster named "other" for another cluster: pass --force`) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != existing {
		t.Error("the file changed although the merge was refused")
	}
	if strings.Contains(err.Error(), "S0VZ") || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Error("credentials in the message")
	}
	if _, err := MergeInto(path, []byte(tenant), Merge{Name: "other", Force: true}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := clientcmd.LoadFromFile(path)
	if cfg.Clusters["other"].Server != "https://bob-checkout.payments.example.com:6443" || cfg.Contexts["kind"] == nil {
		t.Errorf("--force: %+v", cfg.Clusters)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("an existing file's mode changed: %v", st.Mode())
	}
}

func TestMergeCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config")
	if _, err := MergeInto(path, []byte(tenant), Merge{Name: "x", SetCurrent: true}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stat: %v %v", st, err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil || cfg.CurrentContext != "x" || cfg.AuthInfos["x"] == nil {
		t.Fatalf("%+v %v", cfg, err)
	}
}
