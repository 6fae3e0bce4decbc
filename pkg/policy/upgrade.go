package policy

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rules of an upgrade's version path (docs/rules.md §6.1). The server checks none of them;
// the tools do, because Kubernetes itself supports only these steps (its version skew
// policy): a control plane goes forward, one minor version at a time, within a major.
const (
	RuleUpgradeDowngrade = "upgrade-no-downgrade"
	RuleUpgradeMajor     = "upgrade-same-major"
	RuleUpgradeOneMinor  = "upgrade-one-minor"
)

// Kinds of upgrade, as an UpgradePlan names them.
const (
	UpgradeNone      = "none"
	UpgradePatch     = "patch"
	UpgradeMinor     = "minor"
	UpgradeSkipMinor = "skip-minor"
	UpgradeMajor     = "major"
	UpgradeDowngrade = "downgrade"
)

// UpgradePlan is what changing a cluster's Kubernetes version from From to To would be.
type UpgradePlan struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
	// AllowedVersions are the team's allowedKubernetesVersions (none: every version).
	AllowedVersions []string `json:"allowedVersions,omitempty"`
	// Path is the supported way to To when it is more than one minor ahead: a version (or
	// "v1.30.x", any patch) per minor in between, then To.
	Path []string `json:"path,omitempty"`
	// Violations are the refusals of the path rules; the team's allowed versions are
	// AdmitCluster's (RuleTeamAllowedVersions), so that message stays the server-style one.
	Violations []Violation `json:"-"`
}

// Semver is a parsed vMAJOR.MINOR.PATCH.
type Semver struct{ Major, Minor, Patch int }

// ParseVersion reads "v1.31.0", "1.31.0" or "V1.31.0" (NormalizeVersion's forms).
func ParseVersion(v string) (Semver, error) {
	n, err := NormalizeVersion(v)
	if err != nil {
		return Semver{}, err
	}
	parts := strings.Split(n[1:], ".")
	var out [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil { // too many digits for an int
			return Semver{}, &VersionError{Version: v}
		}
		out[i] = x
	}
	return Semver{out[0], out[1], out[2]}, nil
}

func (s Semver) String() string { return fmt.Sprintf("v%d.%d.%d", s.Major, s.Minor, s.Patch) }

// Compare is -1, 0 or 1 as s is older than, equal to or newer than o.
func (s Semver) Compare(o Semver) int {
	for _, d := range [3]int{s.Major - o.Major, s.Minor - o.Minor, s.Patch - o.Patch} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	return 0
}

// PlanUpgrade plans the move of a cluster from version from to version to, under the
// team's allowed versions. It fails only on a malformed version (a *VersionError).
func PlanUpgrade(from, to string, allowed []string) (UpgradePlan, error) {
	f, err := ParseVersion(from)
	if err != nil {
		return UpgradePlan{}, err
	}
	t, err := ParseVersion(to)
	if err != nil {
		return UpgradePlan{}, err
	}
	p := UpgradePlan{From: f.String(), To: t.String(), AllowedVersions: allowed}
	deny := func(rule, msg string) {
		p.Violations = append(p.Violations, Violation{Rule: rule, Error: field.Forbidden(pathK8sVersion, msg)})
	}
	switch {
	case t.Compare(f) == 0:
		p.Kind = UpgradeNone
	case t.Compare(f) < 0:
		p.Kind = UpgradeDowngrade
		deny(RuleUpgradeDowngrade, fmt.Sprintf("cannot downgrade from %s to %s; Kubernetes versions only go forward", p.From, p.To))
	case t.Major != f.Major:
		p.Kind = UpgradeMajor
		deny(RuleUpgradeMajor, fmt.Sprintf("cannot upgrade from %s to %s: upgrades across major versions are not supported", p.From, p.To))
	case t.Minor == f.Minor:
		p.Kind = UpgradePatch
	case t.Minor == f.Minor+1:
		p.Kind = UpgradeMinor
	default:
		p.Kind = UpgradeSkipMinor
		prefix := fmt.Sprintf("cannot upgrade from %s to %s in one step: Kubernetes upgrades one minor version at a time", p.From, p.To)
		for m := f.Minor + 1; m < t.Minor; m++ {
			step := stepVersion(f.Major, m, allowed)
			if step == "" {
				p.Path = nil
				deny(RuleUpgradeOneMinor, fmt.Sprintf("%s, and the team allows no v%d.%d version to go through", prefix, f.Major, m))
				return p, nil
			}
			p.Path = append(p.Path, step)
		}
		p.Path = append(p.Path, p.To)
		deny(RuleUpgradeOneMinor, fmt.Sprintf("%s; upgrade to %s first", prefix, p.Path[0]))
	}
	return p, nil
}

// stepVersion is the version to go through at major.minor: "vM.m.x" when the team allows
// any patch of it (or sets no list), else the newest exact version it allows; "" when none.
func stepVersion(major, minor int, allowed []string) string {
	if len(allowed) == 0 {
		return fmt.Sprintf("v%d.%d.x", major, minor)
	}
	best := -1
	for _, a := range allowed {
		comps := strings.Split(trimV(a), ".")
		if !componentMatches(comps[0], major) || (len(comps) > 1 && !componentMatches(comps[1], minor)) {
			continue
		}
		if len(comps) < 3 || isWildcard(comps[2]) {
			return fmt.Sprintf("v%d.%d.x", major, minor)
		}
		if p, err := strconv.Atoi(comps[2]); err == nil && p > best {
			best = p
		}
	}
	if best < 0 {
		return ""
	}
	return fmt.Sprintf("v%d.%d.%d", major, minor, best)
}

func isWildcard(c string) bool { return c == "x" || c == "X" || c == "*" }

func componentMatches(c string, n int) bool {
	return isWildcard(c) || c == strconv.Itoa(n)
}

// Err is the refusals as the server would print them (nil when there are none).
func (p *UpgradePlan) Err() error {
	d := Decision{Violations: p.Violations}
	return d.Err()
}

// VersionReview is where a cluster's version stands against its team (butlerctl upgrade
// plan): behind the default a new cluster would get, or outside the allowed versions.
type VersionReview struct {
	Current    string `json:"current"`
	Default    string `json:"default,omitempty"`
	Behind     bool   `json:"behind"`
	NotAllowed bool   `json:"notAllowed"`
	// Next is the supported next step towards Default ("" when there is none: not behind, or
	// no version of the next minor is allowed).
	Next string `json:"next,omitempty"`
}

// NeedsAttention reports a cluster behind its default or outside the allowed versions.
func (r VersionReview) NeedsAttention() bool { return r.Behind || r.NotAllowed }

// ReviewVersion compares current with def (the default version for the cluster's
// environment, "" when none resolves) under the allowed versions. It fails on a malformed
// current or default version.
func ReviewVersion(current, def string, allowed []string) (VersionReview, error) {
	cur, err := ParseVersion(current)
	if err != nil {
		return VersionReview{}, err
	}
	r := VersionReview{Current: cur.String(), NotAllowed: !VersionAllowed(current, allowed)}
	if def == "" {
		return r, nil
	}
	d, err := ParseVersion(def)
	if err != nil {
		return VersionReview{}, err
	}
	r.Default = d.String()
	if cur.Compare(d) >= 0 {
		return r, nil
	}
	r.Behind = true
	p, _ := PlanUpgrade(r.Current, r.Default, allowed) // both parsed above
	switch {
	case p.Kind == UpgradeSkipMinor && len(p.Path) > 0:
		r.Next = p.Path[0]
	case p.Kind == UpgradePatch || p.Kind == UpgradeMinor:
		if VersionAllowed(r.Default, allowed) {
			r.Next = r.Default
		}
	}
	return r, nil
}
