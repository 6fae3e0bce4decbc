package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func TestPlanUpgradeKinds(t *testing.T) {
	for _, c := range []struct {
		from, to string
		allowed  []string
		kind     string
		rule     string
		path     string
	}{
		{"v1.30.2", "v1.30.2", nil, policy.UpgradeNone, "", ""},
		{"v1.30.2", "1.30.4", nil, policy.UpgradePatch, "", ""},
		{"v1.30.2", "v1.31.0", nil, policy.UpgradeMinor, "", ""},
		{"v1.30.9", "v1.31.0", nil, policy.UpgradeMinor, "", ""},
		{"v1.31.0", "v1.30.4", nil, policy.UpgradeDowngrade, policy.RuleUpgradeDowngrade, ""},
		{"v1.31.2", "v1.31.1", nil, policy.UpgradeDowngrade, policy.RuleUpgradeDowngrade, ""},
		{"v1.31.0", "v2.0.0", nil, policy.UpgradeMajor, policy.RuleUpgradeMajor, ""},
		{"v1.29.3", "v1.31.0", nil, policy.UpgradeSkipMinor, policy.RuleUpgradeOneMinor, "v1.30.x v1.31.0"},
		{"v1.28.3", "v1.31.0", []string{"1.29.x", "1.30.4", "1.30.2", "1.31.x"}, policy.UpgradeSkipMinor, policy.RuleUpgradeOneMinor, "v1.29.x v1.30.4 v1.31.0"},
		{"v1.29.3", "v1.31.0", []string{"1.29.x", "1.31.x"}, policy.UpgradeSkipMinor, policy.RuleUpgradeOneMinor, ""},
		{"v1.29.3", "v1.31.0", []string{"1.x"}, policy.UpgradeSkipMinor, policy.RuleUpgradeOneMinor, "v1.30.x v1.31.0"},
		// Numbers, not strings: 1.10 is newer than 1.9.
		{"v1.9.0", "v1.10.0", nil, policy.UpgradeMinor, "", ""},
	} {
		p, err := policy.PlanUpgrade(c.from, c.to, c.allowed)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c.from, c.to, err)
		}
		if p.Kind != c.kind {
			t.Errorf("%s -> %s: kind %s, want %s", c.from, c.to, p.Kind, c.kind)
		}
		rule := ""
		if len(p.Violations) > 0 {
			rule = p.Violations[0].Rule
		}
		if rule != c.rule || len(p.Violations) > 1 {
			t.Errorf("%s -> %s: violations %v, want rule %q", c.from, c.to, p.Violations, c.rule)
		}
		if got := strings.Join(p.Path, " "); got != c.path {
			t.Errorf("%s -> %s: path %q, want %q", c.from, c.to, got, c.path)
		}
		if (p.Err() == nil) != (c.rule == "") {
			t.Errorf("%s -> %s: Err %v", c.from, c.to, p.Err())
		}
	}
}

func TestPlanUpgradeMessages(t *testing.T) {
	msg := func(from, to string, allowed ...string) string {
		p, err := policy.PlanUpgrade(from, to, allowed)
		if err != nil {
			t.Fatal(err)
		}
		return p.Err().Error()
	}
	for got, want := range map[string]string{
		msg("v1.31.0", "1.30.4"):            `spec.kubernetesVersion: Forbidden: cannot downgrade from v1.31.0 to v1.30.4; Kubernetes versions only go forward`,
		msg("v1.31.0", "v2.0.0"):            `spec.kubernetesVersion: Forbidden: cannot upgrade from v1.31.0 to v2.0.0: upgrades across major versions are not supported`,
		msg("v1.29.3", "v1.31.0", "1.30.4"): `spec.kubernetesVersion: Forbidden: cannot upgrade from v1.29.3 to v1.31.0 in one step: Kubernetes upgrades one minor version at a time; upgrade to v1.30.4 first`,
		msg("v1.29.3", "v1.31.0", "1.31.x"): `spec.kubernetesVersion: Forbidden: cannot upgrade from v1.29.3 to v1.31.0 in one step: Kubernetes upgrades one minor version at a time, and the team allows no v1.30 version to go through`,
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

func TestPlanUpgradeBadVersions(t *testing.T) {
	for _, c := range [][2]string{{"v1.31", "v1.31.0"}, {"v1.31.0", "latest"}, {"v1.31.0", "v1.99999999999999999999.0"}} {
		_, err := policy.PlanUpgrade(c[0], c[1], nil)
		var ve *policy.VersionError
		if !errors.As(err, &ve) {
			t.Errorf("%s -> %s: %v, want a VersionError", c[0], c[1], err)
		}
	}
}

func TestReviewVersion(t *testing.T) {
	for _, c := range []struct {
		cur, def           string
		allowed            []string
		behind, notAllowed bool
		next               string
	}{
		{"v1.31.0", "v1.31.0", nil, false, false, ""},
		{"v1.31.0", "", nil, false, false, ""},
		{"v1.32.0", "v1.31.0", nil, false, false, ""},
		{"v1.31.0", "1.31.4", nil, true, false, "v1.31.4"},
		{"v1.30.2", "v1.32.0", nil, true, false, "v1.31.x"},
		{"v1.30.2", "v1.32.0", []string{"1.32.x", "1.31.5"}, true, true, "v1.31.5"},
		{"v1.30.2", "v1.32.0", []string{"1.32.x"}, true, true, ""},
		{"v1.31.0", "v1.32.0", []string{"1.31.x"}, true, false, ""},
		{"v1.33.0", "v1.32.0", []string{"1.32.x"}, false, true, ""},
	} {
		r, err := policy.ReviewVersion(c.cur, c.def, c.allowed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Behind != c.behind || r.NotAllowed != c.notAllowed || r.Next != c.next {
			t.Errorf("%s (default %q, allowed %v): %+v, want behind %v notAllowed %v next %q", c.cur, c.def, c.allowed, r, c.behind, c.notAllowed, c.next)
		}
		if r.NeedsAttention() != (c.behind || c.notAllowed) {
			t.Errorf("%s: NeedsAttention %v", c.cur, r.NeedsAttention())
		}
	}
	if _, err := policy.ReviewVersion("v1.31", "", nil); err == nil {
		t.Error("a malformed current version: no error")
	}
}
