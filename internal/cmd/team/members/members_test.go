package members

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// A member added while someone else changes the team: the 409 is retried on a fresh read,
// and both changes are there.
func TestAddRetriesOnConflict(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Interfere = func(tm *v1alpha1.Team) {
		tm.Spec.Access.Groups = append(tm.Spec.Access.Groups, v1alpha1.TeamGroup{Name: "oncall", Role: v1alpha1.RoleViewer})
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewMemberCmd), factory.GlobalOptions{}, "", false, "add", "payments", "dave@example.com", "viewer")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if s.Conflicts != 1 || len(s.Updated) != 1 {
		t.Fatalf("conflicts %d, updates %d", s.Conflicts, len(s.Updated))
	}
	a := s.Teams[0].Spec.Access
	if len(a.Groups) != 1 || a.Users[len(a.Users)-1].Name != "dave@example.com" {
		t.Errorf("access after the retry: %+v", a)
	}
}

// The conflicting edit made dave an admin already: the retry sees it and refuses the add
// of another role instead of overwriting it.
func TestAddRechecksAfterConflict(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	s.Interfere = func(tm *v1alpha1.Team) {
		tm.Spec.Access.Users = append(tm.Spec.Access.Users, v1alpha1.TeamUser{Name: "dave@example.com", Role: v1alpha1.RoleAdmin})
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewMemberCmd), factory.GlobalOptions{}, "", false, "add", "payments", "dave@example.com", "viewer")
	if r.Code != 2 || r.Msg() != `member "dave@example.com" is already in team "payments" as admin: use `+"`set-role`"+` to change the role` {
		t.Fatalf("exit %d: %q", r.Code, r.Msg())
	}
}

// What a verb parsed and completed, through runF: the e-mail as the server compares it,
// the role; nothing is read or written.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	o, r := cmdtest.RunF(t, s, NewMemberCmd, factory.GlobalOptions{}, "add", "payments", " Dave@Example.com ", "viewer")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	c := o.Change
	if o.Team != "payments" || c.Verb != "add" || c.User == nil || c.User.Name != "dave@example.com" || c.User.Role != v1alpha1.RoleViewer ||
		o.Store == nil || o.Printer == nil || s.Writes() != 0 {
		t.Errorf("parsed and completed %+v, %+v", o, c.User)
	}
	if o, r := cmdtest.RunF(t, s, NewGroupCmd, factory.GlobalOptions{}, "add", "payments", "oncall", "owner"); r.Code != 2 || o != nil {
		t.Errorf("unknown role: exit %d: %v", r.Code, r.Err)
	}
}

// run, for a group: added with its identity provider, then re-roled; a viewer may not.
func TestRunGroup(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewGroupCmd), factory.GlobalOptions{}, "", false, "add", "payments", "oncall", "viewer", "--identity-provider", "corp")
	if r.Code != 0 || r.Stdout != `team.butler.butlerlabs.dev/payments group "oncall" (identity provider "corp") added as viewer (team.yaml)`+"\n" {
		t.Fatalf("exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewGroupCmd), factory.GlobalOptions{}, "", false, "set-role", "payments", "oncall", "operator", "--identity-provider", "corp")
	if g := s.Teams[0].Spec.Access.Groups; r.Code != 0 || len(g) != 1 || g[0].Role != v1alpha1.RoleOperator {
		t.Errorf("set-role: exit %d: %v; %+v", r.Code, r.Err, g)
	}
	viewer := storetest.Payments(t, "dave@example.com")
	if r := cmdtest.Run(t, viewer, cmdtest.Cmd(NewGroupCmd), factory.GlobalOptions{}, "", false, "add", "payments", "x", "viewer"); r.Code != 4 || viewer.Writes() != 0 {
		t.Errorf("viewer: exit %d: %v", r.Code, r.Err)
	}
}
