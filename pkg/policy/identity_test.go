package policy_test

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestNormalizeEmail(t *testing.T) {
	for in, want := range map[string]string{
		"alice@example.com":       "alice@example.com",
		"  Alice@Example.COM \t ": "alice@example.com",
		"":                        "",
		"   ":                     "",
	} {
		if got := policy.NormalizeEmail(in); got != want {
			t.Errorf("NormalizeEmail(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeGroupName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CN=DevOps,OU=Groups,DC=corp", "devops"},
		{"cn=Engineers,OU=Groups,DC=corp,DC=example,DC=com", "engineers"},
		{"Cn=Solo", "solo"},
		{"  CN=Padded,OU=x  ", "padded"},
		{"CN=", ""},
		{"CN=a=b,OU=x", "a=b"},
		{"CN=eng@corp.com,OU=x", "eng"},
		{"CNX=foo", "cnx=foo"},
		{"OU=Groups,CN=Late", "ou=groups,cn=late"},
		{"eng@corp.com", "eng"},
		{"a@b@corp.com", "a@b"},
		{"@corp.com", ""},
		{"Platform-Admins", "platform-admins"},
		{"  devs  ", "devs"},
		{"7f2ed032-9e36-433a-acef-ccc19524b2a5", "7f2ed032-9e36-433a-acef-ccc19524b2a5"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := policy.NormalizeGroupName(tt.in); got != tt.want {
			t.Errorf("NormalizeGroupName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzNormalizeGroupName(f *testing.F) {
	for _, s := range []string{"CN=DevOps,OU=Groups,DC=corp", "eng@corp.com", "", "CN=", "cn=@", "@", "  x@y@z  ", "CN=é,OU=ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := policy.NormalizeGroupName(s)
		if n := strings.Count(s, "@"); n > 0 && strings.Count(got, "@") >= n {
			t.Fatalf("NormalizeGroupName(%q) = %q kept the domain", s, got)
		}
		// A configured group always matches the same group on the identity.
		team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Access: v1alpha1.TeamAccess{
			Groups: []v1alpha1.TeamGroup{{Name: s, Role: v1alpha1.RoleOperator}}}}}
		r := policy.TeamRole(team, policy.Identity{Groups: []string{s}}, false)
		if s != "" && r.Role != policy.RoleOperator {
			t.Fatalf("group %q does not match itself", s)
		}
	})
}

// TestPlatformAdmin holds PlatformAdmin to the Team webhook's isPlatformAdmin
// (butler-controller team_webhook.go): the first User whose spec.email matches the username
// by strings.EqualFold decides by spec.isPlatformAdmin alone; platformRole is not read; with
// no User matching nothing is decided (the server asks a SubjectAccessReview).
func TestPlatformAdmin(t *testing.T) {
	user := func(name, email, role string, legacy bool) v1alpha1.User {
		return v1alpha1.User{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.UserSpec{Email: email, PlatformRole: role, IsPlatformAdmin: legacy}}
	}
	users := []v1alpha1.User{
		user("alice", "alice@example.com", "admin", false),
		user("dave", "Dave@Example.com", "", true),
		user("dave-again", "dave@example.com", "", false), // never reached: dave decides first
		user("vic", "vic@example.com", "viewer", true),
		user("trail", "trail@example.com ", "", true),
		user("kate", "kate@example.com", "", true),
	}
	tests := []struct {
		name             string
		id               policy.Identity
		admin, decided   bool
		wantReasonPrefix string
	}{
		{"platformRole admin is not read", policy.Identity{Username: "alice@example.com"}, false, true, ""},
		{"isPlatformAdmin, EqualFold", policy.Identity{Username: "DAVE@example.com"}, true, true, `User "dave" has isPlatformAdmin true`},
		{"the first match decides", policy.Identity{Username: "dave@example.com"}, true, true, `User "dave"`},
		{"platformRole viewer with isPlatformAdmin", policy.Identity{Username: "vic@example.com"}, true, true, `User "vic"`},
		{"the username is not trimmed", policy.Identity{Username: " dave@example.com"}, false, false, ""},
		{"the e-mail is not trimmed", policy.Identity{Username: "trail@example.com"}, false, false, ""},
		{"Kelvin sign folds to k", policy.Identity{Username: "\u212aate@example.com"}, true, true, `User "kate"`},
		{"unknown user: the API server decides", policy.Identity{Username: "eve@example.com", Groups: []string{"platform-admins"}}, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			admin, decided, why := policy.PlatformAdmin(tt.id, users)
			if admin != tt.admin || decided != tt.decided || !strings.HasPrefix(why, tt.wantReasonPrefix) {
				t.Errorf("PlatformAdmin = %v, %v, %q; want %v, %v, %q…", admin, decided, why, tt.admin, tt.decided, tt.wantReasonPrefix)
			}
		})
	}
	// Offline, with no User matching: only system:masters, which any SubjectAccessReview allows.
	if ok, _ := policy.OfflinePlatformAdmin(policy.Identity{Username: "eve@example.com", Groups: []string{"system:masters"}}, users); !ok {
		t.Error("system:masters is not an admin offline")
	}
	if ok, _ := policy.OfflinePlatformAdmin(policy.Identity{Username: "dave@example.com", Groups: []string{"system:masters"}}, users[2:3]); ok {
		t.Error("a matching User with isPlatformAdmin false did not decide")
	}
	if ok, _ := policy.OfflinePlatformAdmin(policy.Identity{Username: "eve@example.com"}, users); ok {
		t.Error("an unknown user is an admin offline")
	}
}

func TestTeamRole(t *testing.T) {
	team := &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: "t"},
		Spec: v1alpha1.TeamSpec{Access: v1alpha1.TeamAccess{
			Users: []v1alpha1.TeamUser{
				{Name: "Alice@Example.com", Role: v1alpha1.RoleAdmin},
				{Name: "bob@example.com", Role: v1alpha1.RoleOperator},
				{Name: "vera@example.com"}, // no role: viewer
				{Name: "odd@example.com", Role: "superuser"},
			},
			Groups: []v1alpha1.TeamGroup{
				{Name: "devs", Role: v1alpha1.RoleOperator},
				{Name: "CN=Leads,OU=Groups,DC=corp", Role: v1alpha1.RoleAdmin},
				{Name: "ops@corp.com", Role: v1alpha1.RoleAdmin, IdentityProvider: "okta"},
				{Name: "readers"},
			},
		}},
	}
	tests := []struct {
		name       string
		id         policy.Identity
		pa         bool
		want       policy.Role
		wantSource string
		wantReason string
		wantVia    []string
	}{
		{"user admin, case-insensitive", policy.Identity{Username: "alice@example.com"}, false, policy.RoleAdmin, "team", "team admin", []string{`user "Alice@Example.com"`}},
		{"user with spaces", policy.Identity{Username: "  BOB@example.com "}, false, policy.RoleOperator, "team", "team operator", []string{`user "bob@example.com"`}},
		{"missing role is viewer", policy.Identity{Username: "vera@example.com"}, false, policy.RoleViewer, "team", "team viewer", []string{`user "vera@example.com"`}},
		{"unknown role grants nothing", policy.Identity{Username: "odd@example.com"}, false, policy.RoleNone, "", "not a member", []string{`user "odd@example.com"`}},
		{"not a member", policy.Identity{Username: "eve@example.com"}, false, policy.RoleNone, "", "not a member", nil},
		{"group plain", policy.Identity{Username: "eve@example.com", Groups: []string{"DEVS"}}, false, policy.RoleOperator, "team", "team operator", []string{`group "devs"`}},
		{"group e-mail form on identity side", policy.Identity{Groups: []string{"devs@corp.com"}}, false, policy.RoleOperator, "team", "team operator", []string{`group "devs"`}},
		{"group LDAP on config side", policy.Identity{Groups: []string{"leads"}}, false, policy.RoleAdmin, "team", "team admin", []string{`group "CN=Leads,OU=Groups,DC=corp"`}},
		{"group LDAP both sides", policy.Identity{Groups: []string{"cn=leads,ou=Other"}}, false, policy.RoleAdmin, "team", "team admin", []string{`group "CN=Leads,OU=Groups,DC=corp"`}},
		{"group missing role is viewer", policy.Identity{Groups: []string{"readers"}}, false, policy.RoleViewer, "team", "team viewer", []string{`group "readers"`}},
		{"highest of user and groups", policy.Identity{Username: "bob@example.com", Groups: []string{"readers", "leads"}}, false, policy.RoleAdmin, "team", "team admin",
			[]string{`user "bob@example.com"`, `group "CN=Leads,OU=Groups,DC=corp"`, `group "readers"`}},
		{"idp filter: same provider, other case", policy.Identity{Groups: []string{"ops"}, IdentityProvider: "OKTA"}, false, policy.RoleAdmin, "team", "team admin", []string{`group "ops@corp.com"`}},
		{"idp filter: provider unknown", policy.Identity{Groups: []string{"ops"}}, false, policy.RoleAdmin, "team", "team admin", []string{`group "ops@corp.com"`}},
		{"idp filter: other provider skips", policy.Identity{Groups: []string{"ops"}, IdentityProvider: "google"}, false, policy.RoleNone, "", "not a member", nil},
		{"idp filter: unbound entries still match", policy.Identity{Groups: []string{"devs"}, IdentityProvider: "google"}, false, policy.RoleOperator, "team", "team operator", []string{`group "devs"`}},
		{"platform admin", policy.Identity{Username: "bob@example.com"}, true, policy.RoleAdmin, "platform", "platform admin", []string{`user "bob@example.com"`, "platform admin"}},
		{"platform admin, not a member", policy.Identity{Username: "root@example.com"}, true, policy.RoleAdmin, "platform", "platform admin", []string{"platform admin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policy.TeamRole(team, tt.id, tt.pa)
			if got.Role != tt.want || got.Source != tt.wantSource || got.Reason != tt.wantReason {
				t.Errorf("TeamRole = %v/%q/%q, want %v/%q/%q", got.Role, got.Source, got.Reason, tt.want, tt.wantSource, tt.wantReason)
			}
			var via []string
			for _, g := range got.Grants {
				via = append(via, g.Via)
			}
			if !reflect.DeepEqual(via, tt.wantVia) {
				t.Errorf("grants via %q, want %q", via, tt.wantVia)
			}
		})
	}
	if got := policy.TeamRole(nil, policy.Identity{Username: "a@b"}, false); got.Role != policy.RoleNone {
		t.Errorf("nil team: %v", got.Role)
	}
}

func TestEnvironmentRoleWorkedExample(t *testing.T) {
	team := exPayments()
	// The document's "Effective access" table.
	want := map[string][2]policy.Role{
		"alice@example.com": {policy.RoleAdmin, policy.RoleAdmin},
		"bob@example.com":   {policy.RoleOperator, policy.RoleAdmin},
		"carol@example.com": {policy.RoleOperator, policy.RoleOperator},
	}
	for user, roles := range want {
		for i, env := range []string{"dev", "prod"} {
			got := policy.EnvironmentRole(team, env, policy.Identity{Username: user}, false)
			if got.Role != roles[i] {
				t.Errorf("%s in %s: %v, want %v", user, env, got.Role, roles[i])
			}
			if !got.Role.CanOperate() {
				t.Errorf("%s in %s cannot operate", user, env)
			}
		}
	}
	bob := policy.EnvironmentRole(team, "prod", policy.Identity{Username: "Bob@Example.com"}, false)
	if bob.Source != "env" || bob.Reason != "env prod elevates operator to admin" {
		t.Errorf("bob in prod: %q %q", bob.Source, bob.Reason)
	}
}

func TestEnvironmentRole(t *testing.T) {
	team := &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: "t"},
		Spec: v1alpha1.TeamSpec{
			Access: v1alpha1.TeamAccess{
				Users:  []v1alpha1.TeamUser{{Name: "admin@x.io", Role: "admin"}, {Name: "op@x.io", Role: "operator"}, {Name: "view@x.io", Role: "viewer"}},
				Groups: []v1alpha1.TeamGroup{{Name: "devs", Role: "viewer"}},
			},
			Environments: []v1alpha1.EnvironmentSpec{
				{Name: "dev", Access: &v1alpha1.TeamAccess{
					Users:  []v1alpha1.TeamUser{{Name: "ADMIN@x.io", Role: "viewer"}, {Name: "view@x.io", Role: "viewer"}, {Name: "op@x.io", Role: "viewer"}},
					Groups: []v1alpha1.TeamGroup{{Name: "devs@corp.com", Role: "operator"}, {Name: "okta-only", Role: "admin", IdentityProvider: "okta"}},
				}},
				{Name: "stage"},
				{Name: "outsiders", Access: &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: "guest@x.io", Role: "operator"}}}},
			},
		},
	}
	tests := []struct {
		name, env string
		id        policy.Identity
		pa        bool
		want      policy.Role
		source    string
		reason    string
	}{
		{"env cannot lower a team admin", "dev", policy.Identity{Username: "admin@x.io"}, false, policy.RoleAdmin, "team", "team admin"},
		{"equal env role does not elevate", "dev", policy.Identity{Username: "view@x.io"}, false, policy.RoleViewer, "team", "team viewer; env dev grants viewer, which does not elevate"},
		{"lower env role ignored", "dev", policy.Identity{Username: "op@x.io"}, false, policy.RoleOperator, "team", "team operator; env dev grants viewer, which does not elevate"},
		{"group elevated by normalised env group", "dev", policy.Identity{Groups: []string{"devs"}}, false, policy.RoleOperator, "env", "env dev elevates viewer to operator"},
		{"env group idp filter skips", "dev", policy.Identity{Groups: []string{"okta-only"}, IdentityProvider: "google"}, false, policy.RoleNone, "", "not a member"},
		{"env group idp filter matches", "dev", policy.Identity{Groups: []string{"okta-only"}, IdentityProvider: "okta"}, false, policy.RoleAdmin, "env", "env dev grants admin"},
		{"env without access", "stage", policy.Identity{Username: "op@x.io"}, false, policy.RoleOperator, "team", "team operator; no env override"},
		{"empty env is the team role", "", policy.Identity{Username: "op@x.io"}, false, policy.RoleOperator, "team", "team operator"},
		{"unknown env is the team role", "nope", policy.Identity{Username: "op@x.io"}, false, policy.RoleOperator, "team", "team operator"},
		{"env access naming a non-member", "outsiders", policy.Identity{Username: "guest@x.io"}, false, policy.RoleOperator, "env", "env outsiders grants operator"},
		{"platform admin everywhere", "dev", policy.Identity{Username: "view@x.io"}, true, policy.RoleAdmin, "platform", "platform admin"},
		{"viewer cannot operate", "stage", policy.Identity{Username: "view@x.io"}, false, policy.RoleViewer, "team", "team viewer; no env override"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policy.EnvironmentRole(team, tt.env, tt.id, tt.pa)
			if got.Role != tt.want || got.Source != tt.source || got.Reason != tt.reason {
				t.Errorf("EnvironmentRole = %v/%q/%q, want %v/%q/%q", got.Role, got.Source, got.Reason, tt.want, tt.source, tt.reason)
			}
		})
	}
}

func TestAccessTableWorkedExample(t *testing.T) {
	got := policy.AccessTable(exPayments(), "")
	want := []policy.AccessEntry{
		{User: "alice@example.com", Environment: "dev", Role: "admin", Source: "team", Reason: "team admin"},
		{User: "alice@example.com", Environment: "prod", Role: "admin", Source: "team", Reason: "team admin"},
		{User: "bob@example.com", Environment: "dev", Role: "operator", Source: "team", Reason: "team operator; no env override"},
		{User: "bob@example.com", Environment: "prod", Role: "admin", Source: "env", Reason: "env prod elevates operator to admin"},
		{User: "carol@example.com", Environment: "dev", Role: "operator", Source: "team", Reason: "team operator; no env override"},
		{User: "carol@example.com", Environment: "prod", Role: "operator", Source: "team", Reason: "team operator; no env override"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AccessTable:\n got %+v\nwant %+v", got, want)
	}

	prod := policy.AccessTable(exPayments(), "prod")
	if len(prod) != 3 || prod[1].User != "bob@example.com" || prod[1].Role != "admin" || prod[2].Environment != "prod" {
		t.Errorf("AccessTable(prod) = %+v", prod)
	}
}

func TestAccessTable(t *testing.T) {
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Access: v1alpha1.TeamAccess{
		Users: []v1alpha1.TeamUser{
			{Name: "Zed@Example.com", Role: "operator"},
			{Name: "zed@example.com", Role: "viewer"}, // duplicate: listed once, highest wins
			{Name: "amy@example.com"},
		},
		Groups: []v1alpha1.TeamGroup{
			{Name: "CN=Leads,OU=Groups", Role: "admin"},
			{Name: "okta-devs", Role: "operator", IdentityProvider: "okta"},
		},
	}}}
	want := []policy.AccessEntry{
		{User: "zed@example.com", Role: "operator", Source: "team", Reason: "team operator"},
		{User: "amy@example.com", Role: "viewer", Source: "team", Reason: "team viewer"},
		{User: "group:CN=Leads,OU=Groups", Role: "admin", Source: "team", Reason: "team admin"},
		{User: "group:okta-devs", Role: "operator", Source: "team", Reason: "team operator"},
	}
	if got := policy.AccessTable(team, ""); !reflect.DeepEqual(got, want) {
		t.Errorf("AccessTable (no envs):\n got %+v\nwant %+v", got, want)
	}
	if got := policy.AccessTable(nil, ""); got != nil {
		t.Errorf("nil team: %+v", got)
	}
}

func TestIsTeamAdmin(t *testing.T) {
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Access: v1alpha1.TeamAccess{
		Users: []v1alpha1.TeamUser{
			{Name: "Alice@Example.com", Role: v1alpha1.RoleAdmin},
			{Name: "kim@example.com", Role: v1alpha1.RoleAdmin},
			{Name: "bob@example.com", Role: v1alpha1.RoleOperator},
			{Name: "nobody@example.com"},
		},
		Groups: []v1alpha1.TeamGroup{
			{Name: "Team-Admins", Role: v1alpha1.RoleAdmin},
			{Name: "devs", Role: v1alpha1.RoleOperator},
		},
	}}}
	tests := []struct {
		name string
		id   policy.Identity
		pa   bool
		want bool
	}{
		{"user admin EqualFold", policy.Identity{Username: "alice@EXAMPLE.com"}, false, true},
		{"username is not trimmed", policy.Identity{Username: " alice@example.com"}, false, false},
		{"Unicode folding, as strings.EqualFold: Kelvin sign", policy.Identity{Username: "\u212aim@example.com"}, false, true},
		{"operator", policy.Identity{Username: "bob@example.com"}, false, false},
		{"missing role", policy.Identity{Username: "nobody@example.com"}, false, false},
		{"group exact", policy.Identity{Groups: []string{"Team-Admins"}}, false, true},
		{"group other case is not the webhook's match", policy.Identity{Groups: []string{"team-admins"}}, false, false},
		{"group e-mail form is not normalised", policy.Identity{Groups: []string{"Team-Admins@corp.com"}}, false, false},
		{"operator group", policy.Identity{Groups: []string{"devs"}}, false, false},
		{"impersonation groups", policy.Identity{Username: "eve@example.com", Groups: []string{"butler-api-users", "system:authenticated"}}, false, false},
		{"platform admin", policy.Identity{Username: "eve@example.com"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := policy.IsTeamAdmin(team, tt.id, tt.pa); got != tt.want {
				t.Errorf("IsTeamAdmin = %v, want %v", got, tt.want)
			}
		})
	}
}
