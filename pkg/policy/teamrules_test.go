package policy_test

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

const (
	exMsgLimitsSet      = `spec.resourceLimits may only be set by platform admins; user "%s" is not a platform admin`
	exMsgLimitsModified = `spec.resourceLimits may only be modified by platform admins; user "%s" is not a platform admin`
)

func TestAdmitTeam(t *testing.T) {
	alice := policy.Identity{Username: "alice@example.com"} // team admin
	bob := policy.Identity{Username: "bob@example.com"}     // operator
	root := policy.Identity{Username: "Root@Example.com"}   // platform admin in these cases
	groupAdmin := policy.Identity{Username: "gina@example.com", Groups: []string{"payments-admins"}}

	withGroupAdmins := func(t *v1alpha1.Team) *v1alpha1.Team {
		t.Spec.Access.Groups = append(t.Spec.Access.Groups, v1alpha1.TeamGroup{Name: "payments-admins", Role: v1alpha1.RoleAdmin})
		return t
	}
	edit := func(f func(*v1alpha1.Team)) *v1alpha1.Team { t := exPayments(); f(t); return t }
	noLimits := edit(func(t *v1alpha1.Team) {
		t.Spec.ResourceLimits = nil
		for i := range t.Spec.Environments {
			t.Spec.Environments[i].Limits = nil
		}
	})

	tests := []struct {
		name     string
		op       policy.Operation
		old, new *v1alpha1.Team
		id       policy.Identity
		pa       bool
		rule     string
		msg      string
	}{
		// Create.
		{"create with resourceLimits, not platform admin", policy.Create, nil, exPayments(), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be set by platform admins; user "alice@example.com" is not a platform admin`},
		{"create with resourceLimits, platform admin", policy.Create, nil, exPayments(), root, true, "", ""},
		{"create with empty resourceLimits block", policy.Create, nil, edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{} }), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be set by platform admins; user "alice@example.com" is not a platform admin`},
		{"create with env limits: index of first env with limits", policy.Create, nil, edit(func(t *v1alpha1.Team) {
			t.Spec.ResourceLimits = nil
			t.Spec.Environments[0].Limits = nil
		}), bob, false,
			"team-env-limits", `spec.environments[1].limits on a new team may only be set by platform admins; user "bob@example.com" is not a platform admin`},
		{"create without limits", policy.Create, nil, noLimits, bob, false, "", ""},
		{"create: username printed as given", policy.Create, nil, exPayments(), policy.Identity{Username: "Bob@Example.com "}, false,
			"team-resource-limits", `spec.resourceLimits may only be set by platform admins; user "Bob@Example.com " is not a platform admin`},
		{"create: env access checked too", policy.Create, nil, edit(func(t *v1alpha1.Team) {
			t.Spec.Environments[1].Access.Users = append(t.Spec.Environments[1].Access.Users, v1alpha1.TeamUser{Name: "mallory@example.com", Role: "admin"})
		}), root, true,
			"env-access-user", `spec.environments[1].access.users["mallory@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`},

		// Update: resourceLimits.
		{"update changing resourceLimits, team admin", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxClusters = exI32(21) }), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},
		{"update changing resourceLimits, platform admin", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxClusters = exI32(21) }), root, true, "", ""},
		{"update removing resourceLimits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits = nil }), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},
		{"update nil to empty resourceLimits is a change", policy.Update, noLimits, edit(func(t *v1alpha1.Team) {
			t.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{}
			for i := range t.Spec.Environments {
				t.Spec.Environments[i].Limits = nil
			}
		}), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},
		// The server's reflect.DeepEqual (team_webhook.go): a Quantity keeps its spelling, so
		// re-spelling the same amount is a change.
		{"update re-spelling 1024Mi as 1Gi is a change, as reflect.DeepEqual has it", policy.Update,
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxMemory = exQty("1024Mi") }),
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxMemory = exQty("1Gi") }), bob, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "bob@example.com" is not a platform admin`},
		{"update re-spelling 1 as 1000m is a change", policy.Update,
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxCPUCores = exQty("1") }),
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxCPUCores = exQty("1000m") }), bob, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "bob@example.com" is not a platform admin`},
		{"update keeping the spelling is no change", policy.Update,
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxMemory = exQty("1024Mi") }),
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxMemory = exQty("1024Mi") }), bob, false, "", ""},
		{"update changing a quantity", policy.Update,
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxMemory = exQty("64Gi") }),
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxMemory = exQty("65Gi") }), bob, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "bob@example.com" is not a platform admin`},
		{"update changing a list in resourceLimits", policy.Update, exPayments(),
			edit(func(t *v1alpha1.Team) { t.Spec.ResourceLimits.AllowedAddons = []string{"traefik"} }), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},
		{"update without changes by an operator", policy.Update, exPayments(), exPayments(), bob, false, "", ""},

		// Update: environment limits.
		{"operator changing env limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.Environments[0].Limits.MaxClustersPerMember = exI32(3) }), bob, false,
			"team-env-limits", `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{"team admin changing env limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.Environments[0].Limits.MaxClustersPerMember = exI32(3) }), alice, false, "", ""},
		{"platform admin changing env limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.Environments[0].Limits = nil }), root, true, "", ""},
		{"group team admin (exact group name)", policy.Update, withGroupAdmins(exPayments()), edit(func(t *v1alpha1.Team) {
			withGroupAdmins(t)
			t.Spec.Environments[1].Limits.MaxClusters = exI32(7)
		}), groupAdmin, false, "", ""},
		{"group team admin by normalised name only is not recognised", policy.Update, withGroupAdmins(exPayments()), edit(func(t *v1alpha1.Team) {
			withGroupAdmins(t)
			t.Spec.Environments[1].Limits.MaxClusters = exI32(7)
		}), policy.Identity{Username: "gina@example.com", Groups: []string{"payments-admins@corp.com"}}, false,
			"team-env-limits", `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "gina@example.com" is neither`},
		{"adding an env with limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments = append(t.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa", Limits: &v1alpha1.EnvironmentLimits{}})
		}), bob, false,
			"team-env-limits", `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{"adding an env without limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments = append(t.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa"})
		}), bob, false, "", ""},
		{"removing an env with limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.Environments = t.Spec.Environments[:1] }), bob, false,
			"team-env-limits", `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{"removing an env without limits", policy.Update,
			edit(func(t *v1alpha1.Team) {
				t.Spec.Environments = append(t.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa"})
			}),
			exPayments(), bob, false, "", ""},
		{"reordering envs is no change", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			e := t.Spec.Environments
			e[0], e[1] = e[1], e[0]
		}), bob, false, "", ""},
		{"renaming an env with limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) { t.Spec.Environments[0].Name = "development" }), bob, false,
			"team-env-limits", `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{"nil versus empty env limits", policy.Update,
			edit(func(t *v1alpha1.Team) { t.Spec.Environments[0].Limits = nil }),
			edit(func(t *v1alpha1.Team) { t.Spec.Environments[0].Limits = &v1alpha1.EnvironmentLimits{} }), bob, false,
			"team-env-limits", `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{"resourceLimits is checked before env limits", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.ResourceLimits = nil
			t.Spec.Environments[0].Limits = nil
		}), bob, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "bob@example.com" is not a platform admin`},
		{"update with nil old: limits count as changed", policy.Update, nil, exPayments(), alice, false,
			"team-resource-limits", `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},

		// Env access membership, on every update, whoever asks.
		{"env access user in other case is a member", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "CAROL@example.com", Role: "admin"}}}
		}), alice, false, "", ""},
		// The server's strings.ToLower on both sides, untrimmed (team_webhook.go
		// validateEnvAccessMembership).
		{"env access user with a trailing space is not a member (not trimmed)", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "carol@example.com ", Role: "admin"}}}
		}), alice, false,
			"env-access-user", `spec.environments[0].access.users["carol@example.com "] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`},
		{"env access user in Unicode case is a member (strings.ToLower)", policy.Update, edit(func(t *v1alpha1.Team) {
			t.Spec.Access.Users = append(t.Spec.Access.Users, v1alpha1.TeamUser{Name: "jörg@example.com"})
		}), edit(func(t *v1alpha1.Team) {
			t.Spec.Access.Users = append(t.Spec.Access.Users, v1alpha1.TeamUser{Name: "jörg@example.com"})
			t.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "JÖRG@example.com", Role: "admin"}}}
		}), alice, false, "", ""},
		{"env access user absent from the team", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "dave@example.com", Role: "admin"}}}
		}), root, true,
			"env-access-user", `spec.environments[0].access.users["dave@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`},
		{"env access group must match exactly", policy.Update, withGroupAdmins(exPayments()), edit(func(t *v1alpha1.Team) {
			withGroupAdmins(t)
			t.Spec.Environments[1].Access.Groups = []v1alpha1.TeamGroup{{Name: "Payments-Admins", Role: "admin"}}
		}), alice, false,
			"env-access-group", `spec.environments[1].access.groups["Payments-Admins"] is not a team group; env access is additive only and cannot introduce groups absent from spec.access.groups`},
		{"env access group present, identityProvider ignored", policy.Update, withGroupAdmins(exPayments()), edit(func(t *v1alpha1.Team) {
			withGroupAdmins(t)
			t.Spec.Environments[1].Access.Groups = []v1alpha1.TeamGroup{{Name: "payments-admins", Role: "admin", IdentityProvider: "okta"}}
		}), alice, false, "", ""},
		{"users of an env are checked before its groups", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments[1].Access = &v1alpha1.TeamAccess{
				Users:  []v1alpha1.TeamUser{{Name: "zoe@example.com"}},
				Groups: []v1alpha1.TeamGroup{{Name: "ghosts"}},
			}
		}), alice, false,
			"env-access-user", `spec.environments[1].access.users["zoe@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`},
		{"earlier env first", policy.Update, exPayments(), edit(func(t *v1alpha1.Team) {
			t.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Groups: []v1alpha1.TeamGroup{{Name: "ghosts"}}}
			t.Spec.Environments[1].Access.Users = []v1alpha1.TeamUser{{Name: "zoe@example.com"}}
		}), alice, false,
			"env-access-group", `spec.environments[0].access.groups["ghosts"] is not a team group; env access is additive only and cannot introduce groups absent from spec.access.groups`},

		// Not seen by the webhook.
		{"delete is allowed", policy.Delete, exPayments(), exPayments(), bob, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := policy.AdmitTeam(tt.op, tt.old, tt.new, tt.id, tt.pa)
			if tt.msg == "" {
				if d != nil {
					t.Fatalf("denied: %s (%s)", d.Message, d.Rule)
				}
				return
			}
			if d == nil {
				t.Fatalf("allowed, want %q", tt.msg)
			}
			if d.Rule != tt.rule || d.Error() != tt.msg || d.Message != tt.msg {
				t.Errorf("got %s: %q\nwant %s: %q", d.Rule, d.Error(), tt.rule, tt.msg)
			}
		})
	}
}

func TestAdmitTeamDocumentMessages(t *testing.T) {
	// The two messages the Environments document quotes, for its example users.
	d := policy.AdmitTeam(policy.Update, exPayments(), func() *v1alpha1.Team {
		t := exPayments()
		t.Spec.ResourceLimits.MaxClusters = exI32(30)
		return t
	}(), policy.Identity{Username: "alice@example.com"}, false)
	if want := strings.Replace(exMsgLimitsModified, "%s", "alice@example.com", 1); d == nil || d.Error() != want {
		t.Errorf("got %v, want %q", d, want)
	}
	d = policy.AdmitTeam(policy.Create, nil, exPayments(), policy.Identity{Username: "carol@example.com"}, false)
	if want := strings.Replace(exMsgLimitsSet, "%s", "carol@example.com", 1); d == nil || d.Error() != want {
		t.Errorf("got %v, want %q", d, want)
	}
	var err error = d
	if err.Error() != d.Message {
		t.Errorf("Denial is not usable as an error")
	}
}

func TestValidateEnvironmentName(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct{ name, want string }{
		{"dev", ""},
		{"Prod_2.blue-green", ""},
		{"a", ""},
		{"9", ""},
		{strings.Repeat("a", 63), ""},
		{"", "environment name is required"},
		{long, `environment name "` + long + `" exceeds 63 characters`},
		{"-dev", `environment name "-dev" must start and end with an alphanumeric character`},
		{"dev.", `environment name "dev." must start and end with an alphanumeric character`},
		{"_", `environment name "_" must start and end with an alphanumeric character`},
		{"dev env", `environment name "dev env" contains invalid character " "`},
		{"dev/prod", `environment name "dev/prod" contains invalid character "/"`},
		{"dév", `environment name "dév" contains invalid character "é"`},
		{"éd", `environment name "éd" must start and end with an alphanumeric character`},
	}
	for _, tt := range tests {
		err := policy.ValidateEnvironmentName(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateEnvironmentName(%q) = %v", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("ValidateEnvironmentName(%q) = %v, want %q", tt.name, err, tt.want)
		}
	}
}
