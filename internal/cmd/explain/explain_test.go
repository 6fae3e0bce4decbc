package explain

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed, through runF: the kind as typed and the path below it.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, ""), NewCmd, factory.GlobalOptions{}, "TC.spec.workers", "--recursive")
	if o.Arg != "TC.spec.workers" || !o.Recursive || o.IO == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
	if _, r := cmdtest.RunF(t, storetest.Payments(t, ""), NewCmd, factory.GlobalOptions{}); r.Code != cmdutil.ExitUsage {
		t.Errorf("no argument: exit %d", r.Code)
	}
}

// run reads no store (nil here): the schemas, rules and defaults are the tools' own.
func TestRun(t *testing.T) {
	r := cmdtest.Run(t, nil, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: "json"}, "", false, "tenantclusters.spec.workers.replicas")
	var v View
	if err := json.Unmarshal([]byte(r.Stdout), &v); r.Code != 0 || err != nil {
		t.Fatalf("exit %d: %v %v, %q", r.Code, r.Err, err, r.Stdout)
	}
	if v.Kind != "TenantCluster" || v.Type != "integer" || !v.Required || v.Default == nil || v.Default.Value != "1" || len(v.Rules) != 2 {
		t.Errorf("%+v", v)
	}
	r = cmdtest.Run(t, nil, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "teams.spec.resourceLimit")
	if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), "did you mean resourceLimits?") {
		t.Errorf("exit %d: %q", r.Code, r.Msg())
	}
}
