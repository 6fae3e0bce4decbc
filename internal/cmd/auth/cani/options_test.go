package cani

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: run is not called, nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "olivia@example.com"), NewCmd, factory.GlobalOptions{}, "create", "cluster", "--team", "payments", "--environment", "prod")
	if !(o.Verb == "create" && o.Team == "payments" && o.Environment == "prod") || o.IO == nil || o.Store == nil || o.Printer == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// The reasons quote names from manifests: printed inert.
func TestAnswerWriteInert(t *testing.T) {
	var b strings.Builder
	a := Answer{Allowed: false, Reasons: []string{"role none in team \"pay\x1b]0;x\aments\""}}
	if err := a.write(&b); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\a") || !strings.HasPrefix(b.String(), "no\n  - role none") {
		t.Errorf("%q", b.String())
	}
}
