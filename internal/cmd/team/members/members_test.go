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
	r := cmdtest.Run(t, s, NewMemberCmd, factory.GlobalOptions{}, "", false, "add", "payments", "dave@example.com", "viewer")
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
	r := cmdtest.Run(t, s, NewMemberCmd, factory.GlobalOptions{}, "", false, "add", "payments", "dave@example.com", "viewer")
	if r.Code != 2 || r.Msg() != `member "dave@example.com" is already in team "payments" as admin: use `+"`set-role`"+` to change the role` {
		t.Fatalf("exit %d: %q", r.Code, r.Msg())
	}
}
