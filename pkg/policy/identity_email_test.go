package policy_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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

// TestEmailsEqualIsTheServers holds EmailsEqual to the webhook's strings.EqualFold, without
// trimming (tenantcluster_webhook.go validateEnvironment: creator-email vs the requester,
// owner vs creator): Unicode case pairs match, surrounding white space does not.
func TestEmailsEqualIsTheServers(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"carol@example.com", "Carol@EXAMPLE.com", true},
		{"carol@example.com", " carol@example.com", false}, // leading space: not trimmed
		{"carol@example.com", "carol@example.com ", false}, // trailing space
		{"kate@example.com", kelvin + "ate@example.com", true},
		{"ſam@example.com", "sam@example.com", true}, // U+017F LONG S folds to "s"
		{"jörg@example.com", "JÖRG@example.com", true},
		{"", "", true},
	}
	for _, c := range cases {
		if got := policy.EmailsEqual(c.a, c.b); got != c.want {
			t.Errorf("EmailsEqual(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := strings.EqualFold(c.a, c.b); got != c.want {
			t.Errorf("the case is wrong: strings.EqualFold(%q, %q) = %v", c.a, c.b, got)
		}
		if got := policy.EmailKey(c.a) == policy.EmailKey(c.b); got != c.want {
			t.Errorf("EmailKey(%q) == EmailKey(%q) is %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// EmailKey groups exactly what strings.EqualFold equates, over every pair of runes of the
// case-folding orbits that are easy to get wrong.
func TestEmailKeyIsEqualFold(t *testing.T) {
	runes := []rune{'k', 'K', '\u212a', 's', 'S', '\u017f', 'i', 'I', '\u0130', '\u0131', 'σ', 'ς', 'Σ', 'ß', 'ẞ', 'µ', 'μ', 'Μ', '\ufffd'}
	for _, a := range runes {
		for _, b := range runes {
			sa, sb := string(a), string(b)
			if got, want := policy.EmailKey(sa) == policy.EmailKey(sb), strings.EqualFold(sa, sb); got != want {
				t.Errorf("%q %q: EmailKey equal %v, EqualFold %v", sa, sb, got, want)
			}
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

// The server folds Unicode case (strings.EqualFold) where it matches people for its own
// rules, so a look-alike is the person it imitates there: team admin (team_webhook.go) and
// owner of their clusters (tenantcluster_webhook.go). The butler-server role of a member
// (TeamRole) is the tools' own comparison and stays ASCII-only.
func TestLookAlikeIdentityIsWhomTheServerSays(t *testing.T) {
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}}
	team.Spec.Access.Users = []v1alpha1.TeamUser{{Name: "kate@example.com", Role: v1alpha1.RoleAdmin}}
	fake := policy.Identity{Username: kelvin + "ate@example.com"}
	if r := policy.TeamRole(team, fake, false); r.Role != policy.RoleNone {
		t.Errorf("look-alike has team role %s, want none", r.Role)
	}
	if !policy.IsTeamAdmin(team, fake, false) {
		t.Error("look-alike is not team admin, which strings.EqualFold makes it")
	}
	users := []v1alpha1.User{{ObjectMeta: metav1.ObjectMeta{Name: "kate"}}}
	users[0].Spec.Email, users[0].Spec.IsPlatformAdmin = "kate@example.com", true
	if ok, decided, _ := policy.PlatformAdmin(fake, users); !ok || !decided {
		t.Error("look-alike is not platform admin, which the Team webhook makes it")
	}
	c := v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: "a",
		Labels:      map[string]string{v1alpha1.LabelEnvironment: "dev"},
		Annotations: map[string]string{v1alpha1.AnnotationOwner: "kate@example.com"}}}
	if n := policy.MemberCount([]v1alpha1.TenantCluster{c}, "dev", fake.Username, ""); n != 1 {
		t.Errorf("look-alike owns %d of kate's clusters, want 1", n)
	}
	if n := policy.MemberCount([]v1alpha1.TenantCluster{c}, "dev", "KATE@example.com", ""); n != 1 {
		t.Errorf("kate in other case owns %d, want 1", n)
	}
	if n := policy.MemberCount([]v1alpha1.TenantCluster{c}, "dev", " kate@example.com", ""); n != 0 {
		t.Errorf("kate with a leading space owns %d, want 0 (the server does not trim)", n)
	}
}

// OwnerKey groups as EmailKey does, stays short whatever the owner, and is its own key: an
// index that keeps OwnerKey(owner) in place of a megabyte owner still counts it as hers.
func TestOwnerKey(t *testing.T) {
	long := strings.Repeat("carol", 1<<18) + "@example.com"
	longFolded := strings.ToUpper(long)
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"carol@example.com", "CAROL@example.com", true},
		{"kate@example.com", kelvin + "ate@example.com", true},
		{"carol@example.com", "bob@example.com", false},
		{long, longFolded, true},
		{long, long + "x", false},
		{long, "carol@example.com", false},
	} {
		ka, kb := policy.OwnerKey(c.a), policy.OwnerKey(c.b)
		if got := ka == kb; got != c.want {
			t.Errorf("OwnerKey(%.20q) == OwnerKey(%.20q) is %v, want %v", c.a, c.b, got, c.want)
		}
		for _, k := range []string{ka, kb} {
			if len(k) > 300 {
				t.Errorf("OwnerKey is %d bytes long", len(k))
			}
			if policy.OwnerKey(k) != k || policy.EmailKey(k) != k {
				t.Errorf("OwnerKey(%.40q) is not its own key", k)
			}
		}
	}
}

// A cluster held with OwnerKey for its owner counts toward its owner's per-member cap as
// the cluster itself does, on the index's fast path and on its slow one.
func TestSiblingIndexOwnerKeyCounts(t *testing.T) {
	long := strings.Repeat("c", 1<<20) + "@example.com"
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: v1alpha1.TeamSpec{
		Environments: []v1alpha1.EnvironmentSpec{{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClustersPerMember: ptr.To(int32(1))}}}}}
	mk := func(name, owner, mem string) *v1alpha1.TenantCluster {
		c := &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "t",
			Labels:      map[string]string{v1alpha1.LabelEnvironment: "dev"},
			Annotations: map[string]string{v1alpha1.AnnotationCreatorEmail: owner}}}
		c.Spec.TeamRef = &v1alpha1.LocalObjectReference{Name: "t"}
		c.Spec.Workers.Replicas = 1
		c.Spec.Workers.MachineTemplate.Memory = resource.MustParse(mem)
		return c
	}
	for _, mem := range []string{"4Gi", "1500m"} { // exact sums, and the clusters themselves
		x := policy.NewSiblingIndex()
		held := mk("a", policy.OwnerKey(long), mem)
		x.Set(held)
		d := policy.AdmitCluster(policy.ClusterRequest{Operation: policy.Create, Cluster: mk("b", long, mem), Team: team, Username: long, SiblingIndex: x})
		if d.Allowed() {
			t.Errorf("memory %s: a second cluster of the owner held by her OwnerKey was admitted past her cap of 1", mem)
		}
	}
}
