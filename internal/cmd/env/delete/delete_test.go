package delete

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func exec(t *testing.T, as, stdin string, tty bool, args ...string) (*storetest.Store, cmdtest.Result) {
	t.Helper()
	s := storetest.Payments(t, as)
	return s, cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, stdin, tty, args...)
}

// execEmpty is exec over the worked example without its clusters: no environment is
// still carried by one, so the delete goes as far as its confirmation.
func execEmpty(t *testing.T, as, stdin string, tty bool, args ...string) (*storetest.Store, cmdtest.Result) {
	t.Helper()
	s := storetest.Payments(t, as)
	s.Clusters = nil
	return s, cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, stdin, tty, args...)
}

// dev still labels two clusters: refused (exit 4) with their names and the way out,
// before any question, with --yes too, and nothing written.
func TestLabelledRefused(t *testing.T) {
	for _, tty := range []bool{false, true} {
		s, r := exec(t, "alice@example.com", "dev\n", tty, "dev", "--team", "payments", "--yes")
		if r.Code != cmdutil.ExitDenied || s.Writes() != 0 || r.Stderr != "" {
			t.Fatalf("tty %v: exit %d (%v), %d writes, stderr %q", tty, r.Code, r.Err, s.Writes(), r.Stderr)
		}
		want := `environment "dev" still labels 2 cluster(s) of team payments: carol-sandbox-1, carol-sandbox-2
Move them first: butleradm env migrate --team payments --environment OTHER -l butler.butlerlabs.dev/environment=dev --relabel; or pass --force to delete it anyway`
		if r.Msg() != want {
			t.Errorf("message %q", r.Msg())
		}
	}
}

func TestDeleteWithForce(t *testing.T) {
	s, r := exec(t, "alice@example.com", "", false, "dev", "--team", "payments", "--force")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stdout != "environment \"dev\" deleted from team payments (team.yaml)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	if want := "2 cluster(s) still carry the label butler.butlerlabs.dev/environment=dev: they keep working and still count toward team payments\n"; r.Stderr != want {
		t.Errorf("stderr %q", r.Stderr)
	}
	envs := s.Updated[0].Spec.Environments
	if len(envs) != 1 || envs[0].Name != "prod" {
		t.Errorf("environments %+v", envs)
	}
}

func TestDeleteLastRemovesEnvironments(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Teams[0].Spec.Environments = s.Teams[0].Spec.Environments[1:]
	s.Clusters = nil
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "prod", "--team", "payments", "-y")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if r.Stderr != "" {
		t.Errorf("stderr %q", r.Stderr)
	}
	if envs := s.Updated[0].Spec.Environments; envs != nil {
		t.Errorf("environments %#v, want nil", envs)
	}
}

func TestWithoutTerminalNeedsYes(t *testing.T) {
	s, r := execEmpty(t, "alice@example.com", "dev\n", false, "dev", "--team", "payments")
	if r.Code != cmdutil.ExitUsage {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `deleting environment "dev" needs confirmation: pass --yes (there is no terminal to ask on)`; r.Msg() != want {
		t.Errorf("message %q", r.Msg())
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestPromptConfirms(t *testing.T) {
	s, r := execEmpty(t, "alice@example.com", "dev\n", true, "dev", "--team", "payments")
	if r.Code != 0 || s.Writes() != 1 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	want := `Remove environment "dev" from team payments? Type the environment name to confirm: `
	if r.Stderr != want {
		t.Errorf("stderr %q", r.Stderr)
	}
}

func TestPromptMismatchCancels(t *testing.T) {
	for _, typed := range []string{"prod\n", "Dev\n", ""} {
		s, r := execEmpty(t, "alice@example.com", typed, true, "dev", "--team", "payments")
		if r.Code != cmdutil.ExitFailure || s.Writes() != 0 {
			t.Fatalf("%q: exit %d: %v", typed, r.Code, r.Err)
		}
		want := map[string]string{
			"prod\n": `deletion cancelled: you typed "prod", expected "dev"`,
			"Dev\n":  `deletion cancelled: you typed "Dev", expected "dev"`,
			"":       `deletion cancelled: you typed "", expected "dev"`,
		}[typed]
		if r.Msg() != want {
			t.Errorf("message %q, want %q", r.Msg(), want)
		}
	}
}

func TestOperatorDeletingCappedEnvDenied(t *testing.T) {
	// prod has caps: removing it changes caps, which only team or platform admins may.
	s, r := exec(t, "bob@example.com", "", true, "prod", "--team", "payments")
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if want := `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`; r.Msg() != want {
		t.Errorf("message %q", r.Msg())
	}
	if r.Stderr != "" {
		t.Errorf("asked before refusing: %q", r.Stderr)
	}
	if s.Writes() != 0 {
		t.Error("wrote")
	}
}

func TestOperatorDeletingUncappedEnv(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	s.Live = &storetest.Server{} // live, the server's RBAC decides who may write the team
	s.Teams[0].Spec.Environments = append(s.Teams[0].Spec.Environments, v1alpha1.EnvironmentSpec{Name: "scratch"})
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "scratch", "--team", "payments", "--force")
	if r.Code != 0 || s.Writes() != 1 || len(s.Updated[0].Spec.Environments) != 2 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
}

func TestNotFoundAndBadName(t *testing.T) {
	_, r := exec(t, "alice@example.com", "", false, "qa", "--team", "payments", "--yes")
	if r.Code != cmdutil.ExitNotFound || r.Msg() != `environment "qa" not found on team "payments" (environments: dev, prod)` {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
	_, r = exec(t, "alice@example.com", "", false, "q/a", "--team", "payments", "--yes")
	if r.Code != cmdutil.ExitUsage || r.Msg() != `environment name "q/a" contains invalid character "/"` {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
	_, r = exec(t, "alice@example.com", "", false, "qa", "--yes")
	if r.Code != cmdutil.ExitUsage || r.Msg() != "--team is required" {
		t.Errorf("exit %d, %q", r.Code, r.Msg())
	}
}

// Someone else edits the team after the confirmation and before the write: the delete is
// applied to a fresh read, without asking again, and their edit is kept.
func TestConcurrentEditIsKept(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Clusters = nil
	s.Interfere = func(team *v1alpha1.Team) { team.Environment("prod").Description = "edited meanwhile" }
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "dev", "--team", "payments", "--yes")
	if r.Code != 0 || s.Conflicts != 1 || len(s.Updated) != 1 {
		t.Fatalf("exit %d (%v), %d conflicts, %d updates", r.Code, r.Err, s.Conflicts, len(s.Updated))
	}
	envs := s.Updated[0].Spec.Environments
	if len(envs) != 1 || envs[0].Name != "prod" || envs[0].Description != "edited meanwhile" {
		t.Errorf("environments %+v", envs)
	}
}

// Someone else deleted the same environment meanwhile: nothing is left to write.
func TestConcurrentDeleteIsDone(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Clusters = nil
	s.Interfere = func(team *v1alpha1.Team) { team.Spec.Environments = team.Spec.Environments[1:] } // prod only
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "dev", "--team", "payments", "--yes")
	if r.Code != 0 || s.Conflicts != 1 || len(s.Updated) != 0 {
		t.Fatalf("exit %d (%v), %d conflicts, %d updates", r.Code, r.Err, s.Conflicts, len(s.Updated))
	}
	if envs := s.Teams[0].Spec.Environments; len(envs) != 1 || envs[0].Name != "prod" {
		t.Errorf("environments %+v", envs)
	}
}
