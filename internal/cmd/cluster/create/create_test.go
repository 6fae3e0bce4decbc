package create

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{},
		"--generate-name", "ci-", "--team", "payments", "--environment", "dev", "--ttl", "2h", "--label", "k=v", "--dry-run")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if o.Name != "" || o.GenerateName != "ci-" || o.TTL.Hours() != 2 || o.DryRun != "client" || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// The expiry is cmdtest's clock (2025-01-01T00:00:00Z) plus --ttl; the generated name is
// the prefix and 5 characters; nothing is written.
func TestRunRendersTTLAndName(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "yaml"}, "", false,
		"--generate-name", "ci-", "--team", "payments", "--environment", "dev", "--ttl", "90m")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if !strings.Contains(r.Stdout, "butler.butlerlabs.dev/expires-at: \"2025-01-01T01:30:00Z\"") {
		t.Errorf("no expiry in\n%s", r.Stdout)
	}
	i := strings.Index(r.Stdout, "\n  name: ci-")
	if i < 0 || len(strings.SplitN(r.Stdout[i+len("\n  name: "):], "\n", 2)[0]) != len("ci-")+5 {
		t.Errorf("no generated name in\n%s", r.Stdout)
	}
	if s.Writes() != 0 || len(s.Clusters) != 4 {
		t.Errorf("wrote: %d writes, %d clusters", s.Writes(), len(s.Clusters))
	}
}
