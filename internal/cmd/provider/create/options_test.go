package create

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: the ProviderConfig built from the
// flags, nothing read from the store.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "aws-us-east", "--provider", "aws", "--region", "us-east-1", "--scope", "team", "--team", "payments")
	if r.Code != 0 || o == nil || o.pc == nil || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	if pc := o.pc; pc.Name != "aws-us-east" || pc.Spec.Provider != "aws" || pc.Spec.AWS == nil || pc.Spec.AWS.Region != "us-east-1" || pc.Spec.Scope.TeamRef.Name != "payments" {
		t.Errorf("built %+v", pc.Spec)
	}
	if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "x", "--provider", "aws", "--endpoint", "https://h"); r.Code != 2 || o != nil {
		t.Errorf("a harvester setting for aws: exit %d: %v", r.Code, r.Err)
	}
}

// run, live: the Secret, then the ProviderConfig naming it, in butler-system; values are
// never printed.
func TestRunLive(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	s.Live = &storetest.Server{}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "aws-us-east", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", credsFile(t))
	if r.Code != 0 || len(s.ProviderConfigs) != 2 || s.Secrets["butler-system/aws-us-east-credentials"] == nil {
		t.Fatalf("exit %d: %v\n%s", r.Code, r.Err, r.Stdout)
	}
	want := "secret/aws-us-east-credentials created\nproviderconfig.butler.butlerlabs.dev/aws-us-east created\n"
	if r.Stdout != want || strings.Contains(r.Stdout+r.Stderr, "rollback-s3cret") {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}
