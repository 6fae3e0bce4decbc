package whoami

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: run is not called.
func TestNewCmdCompletes(t *testing.T) {
	var got *Options
	s := storetest.Payments(t, "bob@example.com")
	r := cmdtest.Run(t, s, func(f *factory.Factory) *cobra.Command {
		return NewCmd(f, func(o *Options) error { got = o; return nil })
	}, factory.GlobalOptions{Output: "json"}, "", false)
	if r.Code != 0 || got == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if got.IO == nil || got.Store == nil || got.Printer == nil || !got.Print.Is(output.JSON) {
		t.Errorf("not completed: %+v", got)
	}
	if r.Stdout != "" {
		t.Errorf("runF only, yet printed %q", r.Stdout)
	}
}

// A bad -o is refused before anything is read.
func TestNewCmdRefusesBadOutput(t *testing.T) {
	r := cmdtest.Run(t, storetest.Payments(t, "bob@example.com"), func(f *factory.Factory) *cobra.Command {
		return NewCmd(f, func(*Options) error { t.Error("ran"); return nil })
	}, factory.GlobalOptions{Output: "nope"}, "", false)
	if r.Code != 2 {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

// run over a fake store: bob's roles in the worked example.
func TestRun(t *testing.T) {
	deps, out, _ := cmdtest.Deps[Store](storetest.Payments(t, "bob@example.com"), Spec, "")
	if err := run(context.Background(), &Options{Deps: deps}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "User:           bob@example.com\n") || !strings.Contains(got, "Platform admin: no\n") ||
		!strings.Contains(got, "payments") || !strings.Contains(got, "Identity from:  --as (working on manifests)\n") {
		t.Errorf("output:\n%s", got)
	}
}

// Where the identity came from, and text from the server or manifests made inert.
func TestDescribeSourceInert(t *testing.T) {
	var b strings.Builder
	v := View{User: "eve\x1b[2J@example.com", Groups: []string{"g\a"}, Source: "the API server, for kubeconfig /k, context c", Teams: []Membership{}}
	if err := describe(&b, v, false, 80); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.ContainsAny(got, "\x1b\a") || !strings.Contains(got, "Identity from:  the API server, for kubeconfig /k, context c\n") {
		t.Errorf("output:\n%q", got)
	}
}
