package check

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// objKey names an object across base and head.
type objKey struct{ kind, namespace, name string }

// objects judges every added, changed or deleted object other than TenantClusters: each
// kind has a rule for its author, and a kind without one is refused.
func (c *change) objects() []Finding {
	index := func(t *tree) (map[objKey]*manifest.Object, []objKey) {
		m := map[objKey]*manifest.Object{}
		var keys []objKey
		for i := range t.set.Objects {
			o := &t.set.Objects[i]
			if o.Kind == "TenantCluster" {
				continue
			}
			k := objKey{o.Kind, o.Namespace, o.Name}
			if _, dup := m[k]; !dup {
				keys = append(keys, k)
			}
			m[k] = o
		}
		return m, keys
	}
	bm, bkeys := index(c.base)
	hm, hkeys := index(c.head)
	var fs []Finding
	for _, k := range hkeys {
		h, b := hm[k], bm[k]
		switch {
		case b == nil:
			fs = append(fs, c.object(policy.Create, nil, h)...)
		case b.Obj != h.Obj && (!equality.Semantic.DeepEqual(b.Obj, h.Obj) || c.limitsRespelled(b, h)):
			fs = append(fs, c.object(policy.Update, b, h)...)
		}
	}
	for _, k := range bkeys {
		if hm[k] == nil {
			fs = append(fs, c.object(policy.Delete, bm[k], nil)...)
		}
	}
	return fs
}

// object judges one request on an object of a kind other than TenantCluster; b is nil on
// create, h on delete.
func (c *change) object(op policy.Operation, b, h *manifest.Object) []Finding {
	at := h
	if at == nil {
		at = b
	}
	var fs []Finding
	// By the decoded type, so base and head agree on it (a kind the loader keeps untyped,
	// NetworkPool, by its name in Butler's group).
	switch at.Obj.(type) {
	case *v1alpha1.Team:
		fs = c.teamChange(op, b, h)
	case *v1alpha1.ProviderConfig:
		fs = c.providerChange(op, b, h)
	case *v1alpha1.ClusterCreationPolicy, *v1alpha1.User, *v1alpha1.IdentityProvider:
		if f, ok := c.platformAdminOnly(op, at, ""); !ok {
			fs = append(fs, f)
		}
	case *v1alpha1.TenantAddon:
		fs = c.addonChange(op, b, h)
	case *stewardv1alpha1.TenantControlPlane:
		fs = c.controlPlaneChange(op, b, h)
	default:
		if at.Kind == "NetworkPool" && strings.HasPrefix(at.APIVersion, v1alpha1.GroupVersion.Group+"/") {
			if f, ok := c.platformAdminOnly(op, at, ""); !ok {
				fs = append(fs, f)
			}
			break
		}
		if !butlerGroup(at.APIVersion) {
			// Flux, Argo CD, Kustomize and Kubernetes objects are recognised, not Butler's
			// to gate: their own review and RBAC decide them.
			break
		}
		fs = append(fs, findingAt(at, "", "", fmt.Sprintf("no rule of the gate covers a %s of %s: the gate refuses a change it cannot judge; ask a platform admin to apply it outside this repository",
			verbOf(op), at.Kind), RuleAuthorUncovered, SeverityError))
	}
	return fs
}

// butlerGroup reports whether apiVersion is of Butler's or Steward's API group, whose
// every kind the gate decides.
func butlerGroup(apiVersion string) bool {
	group, _, _ := strings.Cut(apiVersion, "/")
	return group == v1alpha1.GroupVersion.Group || group == stewardv1alpha1.GroupVersion.Group
}

func verbOf(op policy.Operation) string {
	switch op {
	case policy.Create:
		return "create"
	case policy.Delete:
		return "delete"
	}
	return "change"
}

func objName(o *manifest.Object) string {
	if o.Namespace != "" {
		return fmt.Sprintf("%s %q", o.Kind, o.Namespace+"/"+o.Name)
	}
	return fmt.Sprintf("%s %q", o.Kind, o.Name)
}

// platformAdminOnly: only a platform admin of the base may make the request. why adds a
// reason to the finding.
func (c *change) platformAdminOnly(op policy.Operation, at *manifest.Object, why string) (Finding, bool) {
	if c.admin {
		return Finding{}, true
	}
	if why == "" {
		why = "only platform admins of the base may"
	}
	path := ""
	if u, ok := at.Obj.(*v1alpha1.User); ok && op != policy.Delete && (u.Spec.IsPlatformAdmin || u.Spec.PlatformRole == "admin") {
		why = "it grants platform admin, and only platform admins of the base may; rights never come from the change that grants them"
		path = "spec.platformRole"
		if u.Spec.IsPlatformAdmin {
			path = "spec.isPlatformAdmin"
		}
	}
	msg := fmt.Sprintf("author %q may not %s %s: %s (the author is not a platform admin in the base)", c.author.Username, verbOf(op), objName(at), why)
	return findingAt(at, path, "", msg, RulePlatformAdminOnly, SeverityError), false
}

// providerChange: a ProviderConfig is platform admins' to change; a team-scoped one also
// its team's admins' (the team as base has it). Deleting one that clusters still use is
// refused, as the server refuses it.
func (c *change) providerChange(op policy.Operation, b, h *manifest.Object) []Finding {
	var fs []Finding
	if op == policy.Delete {
		bp := b.Obj.(*v1alpha1.ProviderConfig)
		clusters := make([]v1alpha1.TenantCluster, 0, len(c.head.clusters))
		c.head.each(c.head.clusters, func(_, wc *cluster, err error) {
			if err == nil { // one that cannot be read again is the replay's finding
				clusters = append(clusters, *wc.c)
			}
		})
		if e := policy.ProviderDeleteGuard(bp, clusters); e != nil {
			fs = append(fs, findingAt(b, e.Field, string(e.Type), e.Error(), RuleProviderInUse, SeverityError))
		}
	}
	if !c.known || c.admin {
		return fs
	}
	at := h
	if at == nil {
		at = b
	}
	// Every scope team the request touches (before and after) must have the author as admin.
	teams := map[string]bool{}
	for _, o := range []*manifest.Object{b, h} {
		if o == nil {
			continue
		}
		if pc := o.Obj.(*v1alpha1.ProviderConfig); pc.Spec.Scope != nil && pc.Spec.Scope.TeamRef != nil {
			teams[pc.Spec.Scope.TeamRef.Name] = true
		}
	}
	allowed := len(teams) > 0
	for name := range teams {
		if !policy.IsTeamAdmin(c.base.team(name), c.author, false) {
			allowed = false
		}
	}
	if !allowed {
		f, _ := c.platformAdminOnly(op, at, "only platform admins, and for a team-scoped ProviderConfig that team's admins in the base, may")
		fs = append(fs, f)
	}
	return fs
}

// addonChange: installing, changing or removing a cluster's addon needs operator or admin
// in the cluster's environment; an install or change also meets the team's addon
// restrictions.
func (c *change) addonChange(op policy.Operation, b, h *manifest.Object) []Finding {
	at := h
	if at == nil {
		at = b
	}
	a := at.Obj.(*v1alpha1.TenantAddon)
	ns := a.Namespace
	var tc *v1alpha1.TenantCluster
	for _, t := range []*tree{c.head, c.base} {
		for _, cl := range t.clusters {
			if cl.at.Name == a.Spec.ClusterRef.Name && (ns == "" || cl.ns == ns) {
				if o, err := t.object(cl); err == nil { // else the replay's finding
					tc = cl.whole(o).c
				}
				break
			}
		}
		if tc != nil {
			break
		}
	}
	if tc == nil {
		return []Finding{c.head.missing(at, "spec.clusterRef.name", "TenantCluster", a.Spec.ClusterRef.Name, "the addon's team and environment")}
	}
	var fs []Finding
	if c.known {
		env := tc.Labels[v1alpha1.LabelEnvironment]
		role, team, f, ok := c.authority(at, tc, env)
		switch {
		case !ok:
			fs = append(fs, f...)
		case !role.Role.CanOperate():
			fs = append(fs, findingAt(at, "", "", fmt.Sprintf("user %q may not %s addon %q of cluster %q in team %q: role %s (%s); managing addons needs operator or admin in the cluster's environment",
				c.author.Username, verbOf(op), a.Spec.Addon, tc.Name, team, role.Role, role.Reason), RuleAuthorAddon, SeverityError))
		}
	}
	if op != policy.Delete {
		if team, _ := c.base.teamOf(tc); team != nil {
			if err := policy.AdmitAddon(team, a.Spec.Addon); err != nil {
				fs = append(fs, findingAt(at, "spec.addon", "", err.Error(), policy.RuleTeamAddons, SeverityError))
			}
		}
	}
	return fs
}

// controlPlaneChange: Steward's TenantControlPlane is the controller's; a change may only
// freeze or thaw writes (spec.writePermissions), which needs admin in the cluster's team
// (the team role) or a platform admin. Creating, deleting or changing anything else is
// platform admins'.
func (c *change) controlPlaneChange(op policy.Operation, b, h *manifest.Object) []Finding {
	if !c.known {
		return nil
	}
	if op == policy.Update {
		bt, ht := b.Obj.(*stewardv1alpha1.TenantControlPlane), h.Obj.(*stewardv1alpha1.TenantControlPlane)
		onlyPerms := equality.Semantic.DeepEqual(bt.Labels, ht.Labels) && equality.Semantic.DeepEqual(bt.Annotations, ht.Annotations) &&
			equality.Semantic.DeepEqual(withPerms(bt, ht.Spec.WritePermissions), ht.Spec)
		if onlyPerms {
			if c.admin {
				return nil
			}
			team, _ := c.base.teamOf(&v1alpha1.TenantCluster{ObjectMeta: ht.ObjectMeta})
			if team != nil && policy.TeamRole(team, c.author, false).Role == policy.RoleAdmin {
				return nil
			}
			name := "the team of namespace " + ht.Namespace
			if team != nil {
				name = fmt.Sprintf("team %q", team.Name)
			}
			return []Finding{findingAt(h, "spec.writePermissions", "", fmt.Sprintf("user %q may not change the write permissions of control plane %q: it needs admin in %s (the team role) or a platform admin",
				c.author.Username, ht.Name, name), RuleAuthorControlPlane, SeverityError)}
		}
	}
	at := h
	if at == nil {
		at = b
	}
	if f, ok := c.platformAdminOnly(op, at, "the controller manages control planes: a change may only set spec.writePermissions, and anything else needs a platform admin"); !ok {
		return []Finding{f}
	}
	return nil
}

func withPerms(t *stewardv1alpha1.TenantControlPlane, p stewardv1alpha1.Permissions) stewardv1alpha1.TenantControlPlaneSpec {
	s := t.Spec
	s.WritePermissions = p
	return s
}
