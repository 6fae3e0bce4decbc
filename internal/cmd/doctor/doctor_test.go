package doctor

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/doctor"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// What the command parsed and completed, through runF: run is not called.
func TestNewCmdCompletes(t *testing.T) {
	var got *Options
	s := storetest.Payments(t, "olivia@example.com")
	r := cmdtest.Run(t, s, func(f *factory.Factory) *cobra.Command {
		return NewCmd(f, doctor.Operator, func(o *Options) error { got = o; return nil })
	}, factory.GlobalOptions{Output: "json"}, "", false, "--stuck-after", "2h")
	if r.Code != 0 || got == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if got.IO == nil || got.Store == nil || got.Printer == nil || got.Checks.Now == nil || !got.Print.Is(output.JSON) {
		t.Errorf("not completed: %+v", got)
	}
	if got.Checks.Scope != doctor.Operator || got.Checks.StuckAfter != 2*time.Hour {
		t.Errorf("checks: %+v", got.Checks)
	}
}

// A --stuck-after that is no wait is a usage error, before anything is read.
func TestNewCmdRefusesBadStuckAfter(t *testing.T) {
	r := cmdtest.Run(t, storetest.Payments(t, "bob@example.com"), func(f *factory.Factory) *cobra.Command {
		return NewCmd(f, doctor.Developer, func(*Options) error { t.Error("ran"); return nil })
	}, factory.GlobalOptions{}, "", false, "--stuck-after", "0s")
	if r.Code != 2 || !strings.Contains(r.Err.Error(), "--stuck-after") {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

// Offline there is no installation to check: the manifests' missing server, exit 2.
func TestRunOffline(t *testing.T) {
	deps, out, _ := cmdtest.Deps[Store](storetest.Payments(t, "bob@example.com"), Spec, "")
	err := run(context.Background(), &Options{Deps: deps})
	if !errors.Is(err, store.ErrNoServer) || out.Len() > 0 {
		t.Errorf("err %v, printed %q", err, out.String())
	}
}

// The text: a check a line, long details wrapped under their start at the width, the next
// step on its own line, and a count at the end.
func TestDescribeWraps(t *testing.T) {
	r := doctor.Report{Checks: []doctor.Check{
		{Name: "api", Verdict: doctor.Pass, Detail: "Kubernetes v1.35.4"},
		{Name: "crd teams.butler.butlerlabs.dev", Verdict: doctor.Fail, Detail: "missing: the tools cannot read or write Team objects", Next: "install Butler's CRDs"},
	}}
	var b bytes.Buffer
	if err := describe(&b, r, 40); err != nil {
		t.Fatal(err)
	}
	want := `pass  api: Kubernetes v1.35.4
fail  crd teams.butler.butlerlabs.dev:
      missing: the tools cannot read or
      write Team objects
      next: install Butler's CRDs

2 checks: 0 failed, 0 warnings
`
	// The count is the report's: describe counts verdicts, not Passed.
	want = strings.Replace(want, "0 failed", "1 failed", 1)
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > 40 {
			t.Errorf("line over 40 columns: %q", l)
		}
	}
}

// describe makes every text of the report it prints inert, the details and next steps as
// much as the names: a report quotes the server.
func TestDescribeIsInert(t *testing.T) {
	const hostile = "\x1b]0;pwned\x07\x1b[2J\u202e"
	r := doctor.Report{Checks: []doctor.Check{{Name: "crd " + hostile, Verdict: doctor.Warn,
		Detail: "fields they do not know: spec." + hostile, Next: "kubectl describe crd " + hostile}}}
	var b bytes.Buffer
	if err := describe(&b, r, 200); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if inert.Text(l) != l {
			t.Errorf("not inert: %q", l)
		}
	}
	if strings.Count(b.String(), `^[]0;pwned\a^[[2J\u202e`) != 3 {
		t.Errorf("the hostile text is not quoted three times:\n%s", b.String())
	}
}
