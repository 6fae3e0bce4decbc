package policy_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// kelvin is U+212A KELVIN SIGN: strings.EqualFold and strings.ToLower fold it into "k".
const kelvin = "\u212a"

func TestNormalizeEmailFoldsASCIIOnly(t *testing.T) {
	for in, want := range map[string]string{
		"Bob@Example.COM":             "bob@example.com",
		" bob@example.com\n":          "bob@example.com",
		"bob@example.com":             "bob@example.com",
		"bob@" + kelvin + "-corp.com": "bob@" + kelvin + "-corp.com", // not "bob@k-corp.com"
		"JÖRG@example.com":            "jÖrg@example.com",            // only ASCII letters change
	} {
		if got := policy.NormalizeEmail(in); got != want {
			t.Errorf("NormalizeEmail(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEmailsEqualRejectsUnicodeLookAlikes(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"carol@example.com", " Carol@EXAMPLE.com ", true},
		{"kate@example.com", kelvin + "ate@example.com", false},
		{"bob@kube.example", "bob@" + kelvin + "ube.example", false},
		{"ſam@example.com", "sam@example.com", false}, // U+017F LONG S folds to "s"
		{"", "", true},
	}
	for _, c := range cases {
		if got := policy.EmailsEqual(c.a, c.b); got != c.want {
			t.Errorf("EmailsEqual(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestCheckEmail(t *testing.T) {
	for _, ok := range []string{"bob@example.com", "  bob@example.com ", "system:admin", "Bob@Example.com"} {
		if err := policy.CheckEmail(ok); err != nil {
			t.Errorf("CheckEmail(%q) = %v, want nil", ok, err)
		}
	}
	for in, want := range map[string]string{
		kelvin + "ate@example.com": "U+212A",
		"bob @example.com":         "white space",
		"bob@exa\x00mple.com":      "control",
	} {
		err := policy.CheckEmail(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckEmail(%q) = %v, want an error naming %q", in, err, want)
		}
	}
}

// A look-alike identity neither gets the team role of the address it imitates nor counts
// its clusters, in the library the webhook uses too.
func TestLookAlikeIdentityGetsNothing(t *testing.T) {
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}}
	team.Spec.Access.Users = []v1alpha1.TeamUser{{Name: "kate@example.com", Role: v1alpha1.RoleAdmin}}
	fake := policy.Identity{Username: kelvin + "ate@example.com"}
	if r := policy.TeamRole(team, fake, false); r.Role != policy.RoleNone {
		t.Errorf("look-alike has team role %s, want none", r.Role)
	}
	if policy.IsTeamAdmin(team, fake, false) {
		t.Error("look-alike is team admin")
	}
	users := []v1alpha1.User{{ObjectMeta: metav1.ObjectMeta{Name: "kate"}}}
	users[0].Spec.Email, users[0].Spec.PlatformRole = "kate@example.com", "admin"
	if ok, _ := policy.PlatformAdmin(fake, users, nil); ok {
		t.Error("look-alike is platform admin")
	}
	c := v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: "a",
		Labels:      map[string]string{v1alpha1.LabelEnvironment: "dev"},
		Annotations: map[string]string{v1alpha1.AnnotationOwner: "kate@example.com"}}}
	if n := policy.MemberCount([]v1alpha1.TenantCluster{c}, "dev", fake.Username, ""); n != 0 {
		t.Errorf("look-alike owns %d of kate's clusters, want 0", n)
	}
	if n := policy.MemberCount([]v1alpha1.TenantCluster{c}, "dev", " KATE@example.com", ""); n != 1 {
		t.Errorf("kate herself (other case, spaces) owns %d, want 1", n)
	}
}
