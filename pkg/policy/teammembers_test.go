package policy_test

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestMayChangeMembers(t *testing.T) {
	team := exPayments() // alice admin, bob and carol operators
	team.Spec.Access.Groups = []v1alpha1.TeamGroup{{Name: "payments-admins", Role: v1alpha1.RoleAdmin}}
	tests := []struct {
		name string
		id   policy.Identity
		pa   bool
		ok   bool
	}{
		{"team admin, other case", policy.Identity{Username: "Alice@Example.com"}, false, true},
		{"admin by group", policy.Identity{Username: "gina@example.com", Groups: []string{"payments-admins"}}, false, true},
		{"platform admin, not a member", policy.Identity{Username: "olivia@example.com"}, true, true},
		{"operator", policy.Identity{Username: "bob@example.com"}, false, false},
		{"stranger", policy.Identity{Username: "mallory@example.com"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := policy.MayChangeMembers(team, tt.id, tt.pa)
			if (d == nil) != tt.ok {
				t.Fatalf("MayChangeMembers = %v, want allowed %v", d, tt.ok)
			}
			if d != nil && d.Rule != policy.RuleTeamMembers {
				t.Errorf("rule %q", d.Rule)
			}
		})
	}
}

func TestMayDeleteTeam(t *testing.T) {
	team := exPayments()
	alice := policy.Identity{Username: "alice@example.com"}
	if d := policy.MayDeleteTeam(team, alice, false, 0); d == nil {
		t.Error("a team admin who is not a platform admin may delete the team")
	}
	if d := policy.MayDeleteTeam(team, alice, true, 1); d == nil || d.Message != `team "payments" still has 1 cluster(s): delete or move them first` {
		t.Errorf("with a cluster left: %v", d)
	}
	if d := policy.MayDeleteTeam(team, alice, true, 0); d != nil {
		t.Errorf("platform admin, no clusters: %v", d)
	}
}

func TestLastAdminRemoved(t *testing.T) {
	admin := v1alpha1.TeamUser{Name: "a@example.com", Role: v1alpha1.RoleAdmin}
	op := v1alpha1.TeamUser{Name: "b@example.com", Role: v1alpha1.RoleOperator}
	groupAdmin := v1alpha1.TeamGroup{Name: "g", Role: v1alpha1.RoleAdmin}
	tests := []struct {
		name     string
		old, new v1alpha1.TeamAccess
		want     bool
	}{
		{"last admin demoted", v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{admin, op}}, v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{op}}, true},
		{"a group admin remains", v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{admin}, Groups: []v1alpha1.TeamGroup{groupAdmin}}, v1alpha1.TeamAccess{Groups: []v1alpha1.TeamGroup{groupAdmin}}, false},
		{"no admin before either", v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{op}}, v1alpha1.TeamAccess{}, false},
	}
	for _, tt := range tests {
		if got := policy.LastAdminRemoved(&tt.old, &tt.new); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
