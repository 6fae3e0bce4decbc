package policy

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// AdmitAddon decides installing a named addon on a cluster of team: the team's addon
// restrictions (docs/rules.md §6), with the message a create's --addon gets, so the
// answer is the same before and after the cluster exists. nil when allowed.
func AdmitAddon(team *v1alpha1.Team, addon string) error {
	if team == nil || team.Spec.ResourceLimits == nil {
		return nil
	}
	lim := team.Spec.ResourceLimits
	if AddonAllowed(addon, lim.AllowedAddons, lim.DeniedAddons) {
		return nil
	}
	return field.Forbidden(pathAddons, fmt.Sprintf("addon %q is not allowed for team %q", addonName(addon), team.Name)+beyondNote(RuleTeamAddons))
}

// ParseAddonRef reads NAME@VERSION: both parts required (a TenantAddon's version is), the
// name trimmed; a leading "v" on the version is kept as typed.
func ParseAddonRef(s string) (name, version string, err error) {
	name, version, ok := strings.Cut(strings.TrimSpace(s), "@")
	name, version = strings.TrimSpace(name), strings.TrimSpace(version)
	switch {
	case !ok || version == "":
		return "", "", fmt.Errorf("%q: want NAME@VERSION (a TenantAddon needs a version)", s)
	case name == "":
		return "", "", fmt.Errorf("%q: the addon name is empty", s)
	}
	return name, version, nil
}
