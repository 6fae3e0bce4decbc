package policy_test

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestAdmitAddon(t *testing.T) {
	team := exPayments()
	if err := policy.AdmitAddon(team, "anything"); err != nil {
		t.Errorf("no restrictions: %v", err)
	}
	team.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{AllowedAddons: []string{"Istio", "velero"}, DeniedAddons: []string{"istio"}}
	for addon, want := range map[string]string{
		"velero":     "",
		"VELERO":     "",
		"istio":      `spec.addons: Forbidden: addon "istio" is not allowed for team "payments"; this is butler-toolkit's policy, not Butler's (rule team-addons)`,
		"argocd@2.1": `spec.addons: Forbidden: addon "argocd" is not allowed for team "payments"; this is butler-toolkit's policy, not Butler's (rule team-addons)`,
	} {
		err := policy.AdmitAddon(team, addon)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: %q, want %q", addon, got, want)
		}
	}
}

func TestParseAddonRef(t *testing.T) {
	for in, want := range map[string][2]string{
		" cert-manager @ v1.14.4 ": {"cert-manager", "v1.14.4"},
		"velero@1.13":              {"velero", "1.13"},
	} {
		n, v, err := policy.ParseAddonRef(in)
		if err != nil || n != want[0] || v != want[1] {
			t.Errorf("%q: %q %q %v", in, n, v, err)
		}
	}
	for _, in := range []string{"velero", "velero@", "@1.0", ""} {
		if _, _, err := policy.ParseAddonRef(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
