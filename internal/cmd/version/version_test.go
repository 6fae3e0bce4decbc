package version

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command completed, through runF: the binary asked, from the root's name.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, ""), NewCmd, factory.GlobalOptions{})
	if r.Code != 0 || o == nil || o.Binary != "version" || o.IO == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// run prints the binary's version, and -o json the View; the store is never asked.
func TestRun(t *testing.T) {
	r := cmdtest.Run(t, nil, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false)
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "version ") || !strings.Contains(r.Stdout, "\ncommit: ") {
		t.Errorf("exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, nil, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "json"}, "", false)
	var v View
	if err := json.Unmarshal([]byte(r.Stdout), &v); r.Code != 0 || err != nil || v.Binary != "version" || v.Version == "" {
		t.Errorf("exit %d: %v, %q", r.Code, err, r.Stdout)
	}
}
