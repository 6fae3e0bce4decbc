package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: NAME@VERSION split, nothing read.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "carol@example.com"), NewCmd, factory.GlobalOptions{},
		"carol-sandbox-1", "cert-manager@v1.14.4", "--team", "payments", "--depends-on", "a", "--depends-on", "b")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if o.Addon != "cert-manager" || o.Version != "v1.14.4" || len(o.DependsOn) != 2 || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// Flags that do not go together are usage errors before anything is read.
func TestValidate(t *testing.T) {
	for _, args := range [][]string{
		{"carol-sandbox-1", "cert-manager", "--team", "payments"},
		{"carol-sandbox-1", "podinfo@6.7.0", "--team", "payments", "--chart", "podinfo"},
		{"carol-sandbox-1", "podinfo@6.7.0", "--team", "payments", "--values", "v.yaml"},
		{"carol-sandbox-1", "cert-manager@v1.14.4"},
	} {
		o, r := cmdtest.RunF(t, storetest.Payments(t, "carol@example.com"), NewCmd, factory.GlobalOptions{}, args...)
		if r.Code != 2 || o != nil {
			t.Errorf("%v: exit %d: %v", args, r.Code, r.Err)
		}
	}
}

// run creates one TenantAddon, a chart's with its values; a second install is refused
// and a viewer may not install.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "carol@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "cert-manager@v1.14.4", "--team", "payments")
	if r.Code != 0 || len(s.Addons) != 1 || s.Addons[0].Name != "carol-sandbox-1-cert-manager" || s.Addons[0].Spec.Version != "v1.14.4" {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, s.Addons)
	}
	if !strings.Contains(r.Stdout, "created (cert-manager v1.14.4 on cluster carol-sandbox-1)") {
		t.Errorf("stdout %q", r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "cert-manager@v1.15.0", "--team", "payments")
	if r.Code != 1 || len(s.Addons) != 1 || !strings.Contains(r.Msg(), "already installed") {
		t.Errorf("second install: exit %d: %v", r.Code, r.Err)
	}
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte("replicaCount: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "podinfo@6.7.0", "--team", "payments",
		"--chart", "podinfo", "--repo", "https://example.com/charts", "--values", values)
	if r.Code != 0 || len(s.Addons) != 2 || s.Addons[1].Spec.Helm == nil || string(s.Addons[1].Spec.Values.Raw) != `{"replicaCount":2}` {
		t.Errorf("chart: exit %d: %v; %+v", r.Code, r.Err, s.Addons)
	}
	viewer := storetest.Payments(t, "dave@example.com")
	r = cmdtest.Run(t, viewer, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "carol-sandbox-1", "cert-manager@v1.14.4", "--team", "payments")
	if r.Code != 4 || len(viewer.Addons) != 0 {
		t.Errorf("viewer: exit %d: %v", r.Code, r.Err)
	}
}
