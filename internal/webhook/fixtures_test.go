package webhook_test

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func i32(n int32) *int32 { return &n }

// cluster is a TenantCluster of team payments as butlerctl cluster create renders it.
var cluster = testenv.Cluster

// createTeam makes team (spec as given) in a namespace of its name, recorded in its
// status, where group TEAM:writers may get, list, create, update and patch TenantClusters.
func createTeam(ctx context.Context, c client.Client, team *v1alpha1.Team) error {
	ns, writer := team.Name, team.Name+"-writer"
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: writer, Namespace: ns}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"tenantclusters"},
		Verbs: []string{"get", "list", "create", "update", "patch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: writer, Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: writer},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: team.Name + ":writers"}}}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, role, binding} {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	if err := c.Create(ctx, team); err != nil {
		return err
	}
	team.Status.Namespace = ns
	return c.Status().Update(ctx, team)
}

// teamCluster is cluster(...) of team, in its namespace.
func teamCluster(team, name, env, creator string, replicas int32) *v1alpha1.TenantCluster {
	c := cluster(name, env, creator, replicas, 2, "4Gi")
	c.Namespace = team
	c.Labels[v1alpha1.LabelTeam] = team
	c.Spec.TeamRef.Name = team
	return c
}
