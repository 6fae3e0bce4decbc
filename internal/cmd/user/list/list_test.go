package list

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// What the command parsed and completed, through runF: run is not called.
func TestNewCmdParsesAdmins(t *testing.T) {
	var got *Options
	r := cmdtest.Run(t, storetest.Payments(t, "olivia@example.com"), func(f *factory.Factory) *cobra.Command {
		return NewCmd(f, func(o *Options) error { got = o; return nil })
	}, factory.GlobalOptions{Output: "name"}, "", false, "--admins")
	if r.Code != 0 || got == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if !got.Admins || !got.Print.Is(output.Name) || got.Printer == nil || got.Store == nil || got.IO == nil {
		t.Errorf("parsed and completed %+v", got)
	}
	if r.Stdout != "" {
		t.Errorf("runF only, yet printed %q", r.Stdout)
	}
}

// Arguments are a usage error (exit 2), before anything is read.
func TestNewCmdTakesNoArguments(t *testing.T) {
	r := cmdtest.Run(t, storetest.Payments(t, "olivia@example.com"), func(f *factory.Factory) *cobra.Command {
		return NewCmd(f, func(*Options) error { t.Error("ran"); return nil })
	}, factory.GlobalOptions{}, "", false, "olivia")
	if r.Code != 2 {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
}

func runOver(t *testing.T, s Store, format string, admins bool) string {
	t.Helper()
	deps, out, _ := cmdtest.Deps(s, Spec, format)
	if err := run(context.Background(), &Options{Deps: deps, Admins: admins}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// run over the worked example: every user, sorted; --admins keeps olivia alone.
func TestRun(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	got := runOver(t, s, output.Table, false)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 1+len(s.Users) || !strings.HasPrefix(lines[0], "NAME ") || !strings.Contains(got, "olivia@example.com   admin") {
		t.Errorf("table:\n%s", got)
	}
	if got := runOver(t, s, output.Name, true); got != "user.butler.butlerlabs.dev/olivia\n" {
		t.Errorf("--admins -o name: %q", got)
	}
}

// users is a store that is user list's Store and nothing more: the users it holds.
type users []v1alpha1.User

func (u users) ListUsers(context.Context) ([]v1alpha1.User, error) { return u, nil }

// run over a store of two users only: sorted by name, text from the store made inert, a
// disabled user shown in -o wide.
func TestRunOverItsOwnStore(t *testing.T) {
	s := users{
		{ObjectMeta: metav1.ObjectMeta{Name: "zed"}, Spec: v1alpha1.UserSpec{Email: "zed@example.com", Disabled: true}},
		{ObjectMeta: metav1.ObjectMeta{Name: "amy"}, Spec: v1alpha1.UserSpec{Email: "amy\x1b[2J@example.com"}},
	}
	got := runOver(t, s, output.Wide, false)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "amy ") || !strings.HasPrefix(lines[2], "zed ") ||
		!strings.HasSuffix(lines[2], " yes") || strings.Contains(got, "\x1b") {
		t.Errorf("-o wide:\n%q", got)
	}
}
