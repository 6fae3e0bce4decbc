package shared

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestAuthorize(t *testing.T) {
	team := &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: "payments"},
		Spec: v1alpha1.TeamSpec{
			Access: v1alpha1.TeamAccess{
				Users:  []v1alpha1.TeamUser{{Name: "Alice@Example.com", Role: v1alpha1.RoleAdmin}, {Name: "bob@example.com", Role: "operator"}},
				Groups: []v1alpha1.TeamGroup{{Name: "payments-admins", Role: v1alpha1.RoleAdmin}},
			},
			Environments: []v1alpha1.EnvironmentSpec{{Name: "prod", Access: &v1alpha1.TeamAccess{
				Users: []v1alpha1.TeamUser{{Name: "bob@example.com", Role: v1alpha1.RoleAdmin}},
			}}},
		},
	}
	for _, tc := range []struct {
		actor lookup.Actor
		ok    bool
	}{
		{lookup.Actor{Identity: policy.Identity{Username: "alice@example.com"}}, true},
		// Groups are matched as docs/rules.md §2.2 says: CN=Payments-Admins,... is payments-admins.
		{lookup.Actor{Identity: policy.Identity{Username: "erin@example.com", Groups: []string{"CN=Payments-Admins,OU=Groups,DC=corp"}}}, true},
		{lookup.Actor{Identity: policy.Identity{Username: "olivia@example.com"}, PlatformAdmin: true}, true},
		// An environment's admin grant is not enough.
		{lookup.Actor{Identity: policy.Identity{Username: "bob@example.com"}}, false},
		{lookup.Actor{Identity: policy.Identity{Username: "dave@example.com"}}, false},
	} {
		err := Authorize(team, tc.actor, "freeze", "web")
		if (err == nil) != tc.ok || (err != nil && cmdutil.CodeOf(err) != cmdutil.ExitDenied) {
			t.Errorf("%s: %v, want allowed %v", tc.actor.Identity.Username, err, tc.ok)
		}
	}
}
