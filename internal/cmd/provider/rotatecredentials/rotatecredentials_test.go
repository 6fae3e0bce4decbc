package rotatecredentials

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF; without new credentials it is a
// usage error before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	o := cmdtest.Completed(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{"gitops"}}, "harvester-prod", "--credentials-stdin", "--dry-run")
	if !o.Creds.Stdin || !o.DryRun.Client() || len(o.Manifests) != 1 || o.IO == nil || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
	if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "harvester-prod"); r.Code != 2 || o != nil || !strings.Contains(r.Msg(), "new credentials are required") {
		t.Errorf("no credentials: exit %d: %v", r.Code, r.Err)
	}
}

// run, live: the new keys are checked against the provider's, then replace the Secret's
// data; a removed key is named, no value is printed.
func TestRunLive(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	s.Live = &storetest.Server{}
	s.Secrets = map[string]map[string][]byte{"butler-system/harvester-credentials": {"kubeconfig": []byte("old"), "stale": []byte("x")}}
	file := filepath.Join(t.TempDir(), "creds.yaml")
	if err := os.WriteFile(file, []byte("kubeconfig: new-secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "harvester-prod", "--credentials-file", file)
	if r.Code != 0 || string(s.Secrets["butler-system/harvester-credentials"]["kubeconfig"]) != "new-secret-value" {
		t.Fatalf("exit %d: %v; %v", r.Code, r.Err, s.Secrets)
	}
	if !strings.Contains(r.Stdout, "credentials replaced (keys: kubeconfig); removed keys: stale") || strings.Contains(r.Stdout+r.Stderr, "new-secret-value") {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if err := os.WriteFile(file, []byte("token: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "harvester-prod", "--credentials-file", file); r.Code != 2 {
		t.Errorf("wrong keys: exit %d: %v", r.Code, r.Err)
	}
}
