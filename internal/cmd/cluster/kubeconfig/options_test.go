package kubeconfig

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

const adminConf = `apiVersion: v1
kind: Config
clusters:
- name: bob-checkout
  cluster: {server: "https://10.0.0.1:6443"}
users:
- name: admin
  user: {token: s3cr3t}
contexts:
- name: admin@bob-checkout
  context: {cluster: bob-checkout, user: admin}
current-context: admin@bob-checkout
`

// live is the worked example on a live cluster whose bob-checkout has its admin Secret.
func live(t *testing.T) *storetest.Store {
	s := storetest.Payments(t, "bob@example.com")
	s.Clusters[0].Status.TenantNamespace = "payments-bob-checkout"
	s.Live = &storetest.Server{Secret: func(_ context.Context, ns, name string, keys ...string) (string, []byte, error) {
		if ns != "payments-bob-checkout" || name != "bob-checkout-admin-kubeconfig" || keys[0] != "admin.conf" {
			t.Errorf("Secret %s/%s %v", ns, name, keys)
		}
		return "admin.conf", []byte(adminConf), nil
	}}
	return s
}

// What the command parsed and completed, through runF; merge flags without --merge are a
// usage error before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, live(t), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "--merge", "--set-context")
	if r.Code != 0 || o == nil || !o.Merge || !o.SetContext || o.Offline || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	if o, r := cmdtest.RunF(t, live(t), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "--set-context"); r.Code != 2 || o != nil {
		t.Errorf("--set-context alone: exit %d: %v", r.Code, r.Err)
	}
}

// run prints the kubeconfig as the Secret holds it, -o jsonpath reads it parsed, and
// --file writes it mode 0600 with only a line on stderr.
func TestRun(t *testing.T) {
	r := cmdtest.Run(t, live(t), cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments")
	if r.Code != 0 || r.Stdout != adminConf {
		t.Errorf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, live(t), cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "jsonpath={.clusters[0].cluster.server}"}, "", false, "bob-checkout", "--team", "payments")
	if r.Code != 0 || r.Stdout != "https://10.0.0.1:6443" {
		t.Errorf("jsonpath: exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	file := filepath.Join(t.TempDir(), "kc")
	r = cmdtest.Run(t, live(t), cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "--file", file)
	fi, err := os.Stat(file)
	if r.Code != 0 || err != nil || fi.Mode().Perm() != FileMode || r.Stdout != "" || strings.Contains(r.Stderr, "s3cr3t") {
		t.Errorf("--file: exit %d: %v; %v %v; %q %q", r.Code, r.Err, fi, err, r.Stdout, r.Stderr)
	}
}
