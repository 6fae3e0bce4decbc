package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// The store is taken only on manifests, where references are checked; without -f, a usage
// error before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "-f", "p.yaml")
	if r.Code != 0 || o == nil || o.Store != nil || len(o.Files) != 1 || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	o, r = cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{"payments"}}, "-f", "p.yaml")
	if r.Code != 0 || o == nil || o.Store == nil {
		t.Errorf("on manifests: exit %d: %v; %+v", r.Code, r.Err, o)
	}
	if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}); r.Code != 2 || o != nil {
		t.Errorf("no -f: exit %d: %v", r.Code, r.Err)
	}
}

const teamPolicy = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ClusterCreationPolicy
metadata:
  name: other-images
spec:
  scope:
    team: {teamRef: {name: other}}
  options:
    image: {mode: allowList, values: [ubuntu-24]}
`

// run: a policy naming a team the manifests lack is refused only on manifests (exit 2).
func TestRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(file, []byte(teamPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	s := storetest.Payments(t, "olivia@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "-f", file)
	if r.Code != 0 || r.Stdout != "1 ClusterCreationPolicies valid\n" {
		t.Errorf("no manifests: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Manifests: []string{"payments"}, Output: "json"}, "", false, "-f", file)
	if r.Code != 2 || !strings.Contains(r.Stdout, `"valid": false`) || !strings.Contains(r.Stdout, `ClusterCreationPolicy \"other-images\"`) {
		t.Errorf("on manifests: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
}
