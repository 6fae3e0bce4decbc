package webhook

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

const beyond = "; this is butler-toolkit's policy, not Butler's (rule "

// Each rule beyond Butler's refuses with its own wording by default and admits with its
// switch off (or with every one off: the webhook then answers as Butler).
func TestRulesBeyondButler(t *testing.T) {
	r := payments(t)
	old := r.teams["payments"]

	// Team restrictions: an addon the team denies.
	deny := old.DeepCopy()
	deny.Spec.ResourceLimits.DeniedAddons = []string{"cilium"}
	deny.Spec.ClusterDefaults.DefaultAddons = []string{"cilium"}
	r.teams["payments"] = deny
	create := reviewBody(t, admissionv1.Create, "TenantCluster", tc("x", "dev", "bob@example.com", 1), nil, "bob@example.com")
	h := newTestHandler(t, r)
	_, resp := post(t, h, PathTenantCluster, create)
	if resp.Allowed || !strings.HasSuffix(resp.Result.Message, beyond+"team-addons)") {
		t.Fatalf("default: %+v", resp.Result)
	}
	for _, off := range []string{policy.RuleTeamAddons, "all"} {
		h := newTestHandler(t, r)
		if err := h.SetRulesOff([]string{off}); err != nil {
			t.Fatal(err)
		}
		if _, resp := post(t, h, PathTenantCluster, create); !resp.Allowed {
			t.Errorf("%s off: %+v", off, resp.Result)
		}
	}
	r.teams["payments"] = old

	// Authority on the Team as it was: bob, an operator, makes himself admin and changes
	// dev's limits in one update. Butler judges the new Team and admits it.
	grab := old.DeepCopy()
	for i := range grab.Spec.Access.Users {
		if grab.Spec.Access.Users[i].Name == "bob@example.com" {
			grab.Spec.Access.Users[i].Role = v1alpha1.RoleAdmin
		}
	}
	n := int32(9)
	grab.Spec.Environments[0].Limits.MaxClustersPerMember = &n
	update := reviewBody(t, admissionv1.Update, "Team", grab, old, "bob@example.com")
	_, resp = post(t, newTestHandler(t, r), PathTeam, update)
	want := `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is not a team admin before this update` + beyond + "team-authority-as-was)"
	if resp.Allowed || resp.Result.Message != want {
		t.Fatalf("default: %+v", resp.Result)
	}
	h = newTestHandler(t, r)
	if err := h.SetRulesOff([]string{policy.RuleTeamAuthorityAsWas}); err != nil {
		t.Fatal(err)
	}
	if _, resp := post(t, h, PathTeam, update); !resp.Allowed {
		t.Errorf("off: %+v", resp.Result)
	}

	// Updates that change nothing: admitted unchecked by default; checked as on Butler
	// with the switch off, so a Team already naming a stranger in env access is refused.
	stranger := old.DeepCopy()
	stranger.Spec.Environments[1].Access.Users = append(stranger.Spec.Environments[1].Access.Users, v1alpha1.TeamUser{Name: "mallory@example.com"})
	same := reviewBody(t, admissionv1.Update, "Team", stranger, stranger, "olivia@example.com")
	if _, resp := post(t, newTestHandler(t, r), PathTeam, same); !resp.Allowed {
		t.Fatalf("default: %+v", resp.Result)
	}
	h = newTestHandler(t, r)
	if err := h.SetRulesOff([]string{policy.RuleUnchangedUpdate}); err != nil {
		t.Fatal(err)
	}
	if _, resp := post(t, h, PathTeam, same); resp.Allowed {
		t.Error("off: an unchanged Team naming a stranger admitted unchecked")
	}

	if err := newTestHandler(t, r).SetRulesOff([]string{"env-max-clusters"}); err == nil || !strings.Contains(err.Error(), "not a rule of this webhook beyond Butler's") {
		t.Errorf("a Butler rule switched off: %v", err)
	}
}
