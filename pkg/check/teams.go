package check

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// A change's Teams: who may change one, judged as the server judges it (its own
// comparison of the Teams as decoded), and the field each refusal is about.

// keptTeams are the Teams of base whose change the findings refuse, by name: what Butler
// keeps, and what the usage after the change counts against.
func (c *change) keptTeams(fs []Finding) map[string]*v1alpha1.Team {
	kept := map[string]*v1alpha1.Team{}
	for _, f := range fs {
		if f.Kind != "Team" || f.Severity != SeverityError {
			continue
		}
		if t := c.base.team(f.Name); t != nil {
			kept[f.Name] = t
		}
	}
	return kept
}

// decodedTeams copies the Teams of the sets (decoded above).
func decodedTeams(sets ...*manifest.Set) map[*manifest.Object]*v1alpha1.Team {
	m := map[*manifest.Object]*v1alpha1.Team{}
	for _, set := range sets {
		for i := range set.Objects {
			if t, ok := set.Objects[i].Obj.(*v1alpha1.Team); ok {
				m[&set.Objects[i]] = t.DeepCopy()
			}
		}
	}
	return m
}

// team is o's Team as decoded (nil for no object, or another kind).
func (c *change) team(o *manifest.Object) *v1alpha1.Team {
	if o == nil {
		return nil
	}
	return c.decoded[o]
}

// teamChange: the server's Team webhook judges the applier (its messages); the gate
// judges the author from the team as base has it.
func (c *change) teamChange(op policy.Operation, b, h *manifest.Object) []Finding {
	bt, ht := c.team(b), c.team(h)
	var fs []Finding
	if op != policy.Delete {
		if d := policy.AdmitTeam(op, bt, ht, c.applier, c.applierAdmin); d != nil {
			fs = append(fs, atPatch(findingAt(h, teamDenialField(d.Rule, bt, ht), "Forbidden", d.Message, d.Rule, SeverityError), h, d))
			if !c.opt.gitOps() {
				return fs // the author is the applier: the server's refusal says it
			}
		}
	}
	if !c.known {
		return fs
	}
	who := fmt.Sprintf("author %q", c.author.Username)
	switch op {
	case policy.Create:
		if f, ok := c.platformAdminOnly(op, h, "a new team is created by platform admins"); !ok {
			fs = append(fs, f)
		}
	case policy.Delete:
		if f, ok := c.platformAdminOnly(op, b, "teams are deleted by platform admins"); !ok {
			fs = append(fs, f)
		}
		if bt != nil {
			var left []string
			for _, hc := range c.head.clusters {
				if hc.at.Team == bt.Name || (hc.at.Team == "" && hc.ns == bt.TeamNamespace()) {
					left = append(left, hc.at.Name)
				}
			}
			if len(left) > 0 {
				fs = append(fs, findingAt(b, "", "", fmt.Sprintf("team %q is deleted while it still has %d cluster(s) (%s): delete them first",
					bt.Name, len(left), strings.Join(left, ", ")), RuleAuthorTeamDelete, SeverityError))
			}
		}
	case policy.Update:
		if bt == nil || ht == nil {
			return fs
		}
		admin := policy.IsTeamAdmin(bt, c.author, c.admin)
		switch {
		case !policy.LimitsEqual(bt.Spec.ResourceLimits, ht.Spec.ResourceLimits) && !c.admin:
			fs = append(fs, findingAt(h, limitsEditedField(bt, ht), "", fmt.Sprintf("%s may not change the resource limits of team %q: only platform admins of the base may",
				who, ht.Name), RuleAuthorTeamLimits, SeverityError))
		case envLimitsEdited(bt, ht) != "" && !admin:
			fs = append(fs, findingAt(h, envLimitsEdited(bt, ht), "", fmt.Sprintf("%s may not change the environment limits of team %q: only its admins in the base, and platform admins, may; a role this change grants counts from the next change",
				who, ht.Name), RuleAuthorTeamEnvLimits, SeverityError))
		case !admin:
			fs = append(fs, findingAt(h, teamChangedField(bt, ht), "", fmt.Sprintf("%s may not change team %q: only its admins in the base, and platform admins, may; a role this change grants counts from the next change",
				who, ht.Name), RuleAuthorTeam, SeverityError))
		}
	}
	return fs
}

// teamDenialField is the field a refusal of the Team webhook is about, for its line: the
// limit or environment limits the change edits; "" (the object) for the others.
func teamDenialField(rule string, b, h *v1alpha1.Team) string {
	if b == nil {
		b = &v1alpha1.Team{}
	}
	switch rule {
	case policy.RuleTeamResourceLimits:
		return limitsEditedField(b, h)
	case policy.RuleTeamEnvLimits:
		return envLimitsEdited(b, h)
	}
	return ""
}

// limitsEditedField is the path of the first of the resource limits that b changes from a
// as the server compares them ("spec.resourceLimits.maxClusters"), or of the block when it
// is added or removed.
func limitsEditedField(a, b *v1alpha1.Team) string {
	x, y := a.Spec.ResourceLimits, b.Spec.ResourceLimits
	if x == nil || y == nil {
		return "spec.resourceLimits"
	}
	vx, vy := reflect.ValueOf(*x), reflect.ValueOf(*y)
	for i := 0; i < vx.NumField(); i++ {
		if !policy.LimitsEqual(vx.Field(i).Interface(), vy.Field(i).Interface()) {
			name, _, _ := strings.Cut(vx.Type().Field(i).Tag.Get("json"), ",")
			return "spec.resourceLimits." + name
		}
	}
	return "spec.resourceLimits"
}

// limitsRespelled reports two Teams whose limits are equal as quantities but not as the
// server compares them: re-spelled ("1Gi" to "1024Mi"), an update all the same.
func (c *change) limitsRespelled(b, h *manifest.Object) bool {
	bt, ht := c.team(b), c.team(h)
	return bt != nil && ht != nil && !policy.LimitsEqual(bt.Spec.ResourceLimits, ht.Spec.ResourceLimits)
}

// teamChangedField is the path of the first part of a Team's spec that b changes from a
// (an environment by its index), for the line a finding on the edit points at; "" when
// only metadata changed.
func teamChangedField(a, b *v1alpha1.Team) string {
	x, y := a.Spec, b.Spec
	switch {
	case x.DisplayName != y.DisplayName:
		return "spec.displayName"
	case x.Description != y.Description:
		return "spec.description"
	case !equality.Semantic.DeepEqual(x.Access, y.Access):
		return "spec.access"
	case !equality.Semantic.DeepEqual(x.ResourceLimits, y.ResourceLimits):
		return "spec.resourceLimits"
	case !equality.Semantic.DeepEqual(x.ProviderConfigRef, y.ProviderConfigRef):
		return "spec.providerConfigRef"
	case !equality.Semantic.DeepEqual(x.ClusterDefaults, y.ClusterDefaults):
		return "spec.clusterDefaults"
	case !equality.Semantic.DeepEqual(x.Environments, y.Environments):
		for i := range y.Environments {
			if i >= len(x.Environments) || !equality.Semantic.DeepEqual(x.Environments[i], y.Environments[i]) {
				return fmt.Sprintf("spec.environments[%d]", i)
			}
		}
		return "spec.environments"
	case !equality.Semantic.DeepEqual(x, y):
		return "spec"
	}
	return ""
}

// envLimitsEdited compares the environments' limits by name, and gives the path of the
// first one edited (for the finding's line) or "" when none is.
func envLimitsEdited(a, b *v1alpha1.Team) string {
	old := map[string]*v1alpha1.EnvironmentLimits{}
	for i := range a.Spec.Environments {
		old[strings.ToLower(a.Spec.Environments[i].Name)] = a.Spec.Environments[i].Limits
	}
	for i := range b.Spec.Environments {
		e := &b.Spec.Environments[i]
		prev, ok := old[strings.ToLower(e.Name)]
		if !ok && e.Limits == nil {
			continue
		}
		delete(old, strings.ToLower(e.Name))
		if !equality.Semantic.DeepEqual(prev, e.Limits) {
			return fmt.Sprintf("spec.environments[%d].limits", i)
		}
	}
	for _, l := range old {
		if l != nil {
			return "spec.environments" // an environment with limits removed
		}
	}
	return ""
}
