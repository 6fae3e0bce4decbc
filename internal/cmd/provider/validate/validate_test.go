package validate

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

func provider(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "examples", "payments", "provider.yaml")
}

// Without -f or arguments the --manifests paths are read; with none either, a usage error
// before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{"gitops"}})
	if r.Code != 0 || o == nil || len(o.Files) != 1 || o.Files[0] != "gitops" || o.IO == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	o, r = cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{})
	if r.Code != 2 || o != nil || !strings.Contains(r.Msg(), "needs files") {
		t.Errorf("no files: exit %d: %v", r.Code, r.Err)
	}
}

// run reports the worked example's provider valid; -o json says so for tools.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "-f", provider(t))
	if r.Code != 0 || !strings.HasSuffix(r.Stdout, `: ProviderConfig "butler-system/harvester-prod" (harvester): valid`+"\n") {
		t.Errorf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "json"}, "", false, provider(t))
	if r.Code != 0 || !strings.Contains(r.Stdout, `"valid": true`) {
		t.Errorf("-o json: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
}
