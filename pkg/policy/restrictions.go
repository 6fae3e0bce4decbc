package policy

import "strings"

// Team feature restrictions (docs/rules.md §6). The server does not enforce them;
// the tools do, client-side.

// VersionAllowed reports whether the Kubernetes version matches one of the allowed patterns.
// An empty list allows every version. Matching is per dot-separated component, after trimming
// spaces and one leading "v" or "V" on both sides: a component "x", "X" or "*" in a pattern
// matches any non-empty component, any other component must be equal. A pattern with fewer
// components than the version matches its leading components, so "1.29.x" and "1.29" both
// match every 1.29 patch, while "1.30.4" matches only v1.30.4 (and 1.30.4).
func VersionAllowed(version string, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	v := trimV(version)
	if v == "" {
		return false
	}
	for _, p := range allowed {
		if versionMatches(v, trimV(p)) {
			return true
		}
	}
	return false
}

func trimV(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		s = s[1:]
	}
	return s
}

// versionMatches walks both strings component by component without allocating.
func versionMatches(v, p string) bool {
	if p == "" {
		return false
	}
	for {
		pc, prest, pmore := strings.Cut(p, ".")
		vc, vrest, vmore := strings.Cut(v, ".")
		if vc == "" || pc == "" {
			return false
		}
		if pc != "x" && pc != "X" && pc != "*" && pc != vc {
			return false
		}
		if !pmore {
			return true // the pattern is exhausted: a prefix (or the whole) of the version matched
		}
		if !vmore {
			return false // the pattern is longer than the version
		}
		p, v = prest, vrest
	}
}

// AddonAllowed reports whether a team may have the named addon: an entry of denied wins over
// allowed; an empty allowed list allows every addon not denied. Names are compared trimmed and
// case-insensitively, and a "@version" suffix on addon is ignored ("cert-manager@v1.14").
func AddonAllowed(addon string, allowed, denied []string) bool {
	name := addonName(addon)
	for _, d := range denied {
		if strings.EqualFold(strings.TrimSpace(d), name) {
			return false
		}
	}
	if len(allowed) == 0 {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(a), name) {
			return true
		}
	}
	return false
}

func addonName(addon string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(addon), "@")
	return strings.TrimSpace(name)
}

// ProviderAllowed reports whether a team may use a provider type (harvester, nutanix, …): an
// empty list allows all; entries are compared trimmed and case-insensitively.
func ProviderAllowed(provider string, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	p := strings.TrimSpace(provider)
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(a), p) {
			return true
		}
	}
	return false
}
