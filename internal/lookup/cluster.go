package lookup

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Cluster reads a TenantCluster of a team, in the team's namespace; a missing one is a
// NotFound worded as cluster get words it.
func Cluster(ctx context.Context, s store.Reader, t *v1alpha1.Team, name string) (*v1alpha1.TenantCluster, error) {
	ns := t.TeamNamespace()
	c, err := s.GetCluster(ctx, ns, name)
	if apierrors.IsNotFound(err) {
		return nil, notFound("tenantclusters", name, "tenant cluster %q not found in namespace %q", name, ns)
	}
	return c, err
}

// RequireOperator checks that the actor may change cluster c of team t (scale or delete
// it, the verb): operator or admin in the cluster's environment (docs/rules.md §3.3), the
// team's role for a cluster without one. A refusal is marked storeerr.ErrDenied.
func RequireOperator(t *v1alpha1.Team, c *v1alpha1.TenantCluster, a Actor, verb string) (policy.RoleResult, error) {
	env := c.Labels[v1alpha1.LabelEnvironment]
	role := policy.EnvironmentRole(t, env, a.Identity, a.PlatformAdmin)
	if role.Role.CanOperate() {
		return role, nil
	}
	where := fmt.Sprintf("team %q", t.Name)
	if env != "" {
		where = fmt.Sprintf("environment %q of team %q", env, t.Name)
	}
	return role, storeerr.Denied(fmt.Errorf("user %q may not %s cluster %q in %s: role %s (%s); %s clusters needs operator or admin",
		a.Identity.Username, verb, c.Name, where, role.Role, role.Reason, gerund(verb)))
}

func gerund(verb string) string {
	switch verb {
	case "scale":
		return "scaling"
	case "delete":
		return "deleting"
	case "change":
		return "changing"
	case "upgrade":
		return "upgrading"
	}
	return verb + "ing"
}
