package get

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{Output: "json"}, "bob@example.com")
	if r.Code != 0 || o == nil || o.User != "bob@example.com" || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	if o, r := cmdtest.RunF(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{}); r.Code != 2 || o != nil {
		t.Errorf("no argument: exit %d: %v", r.Code, r.Err)
	}
}

// run finds a user by name or by e-mail as the server compares it, with its team; an
// unknown one is not found (exit 3).
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	for _, name := range []string{"bob", " Bob@Example.com "} {
		r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, name)
		if r.Code != 0 || !strings.Contains(r.Stdout, "Email:         bob@example.com\n") || !strings.Contains(r.Stdout, "Teams:         payments (operator)\n") {
			t.Errorf("%q: exit %d: %v\n%s", name, r.Code, r.Err, r.Stdout)
		}
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "json"}, "", false, "olivia")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"platformRole": "admin"`) || !strings.Contains(r.Stdout, `"teams": []`) {
		t.Errorf("-o json: exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "nobody"); r.Code != 3 {
		t.Errorf("unknown: exit %d: %v", r.Code, r.Err)
	}
}
