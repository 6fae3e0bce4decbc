// Package lookup gathers what several commands need from a store: a team with its
// namespace and clusters, who is asking, and which ProviderConfig a cluster would use.
//
// Its errors are the stores' kinds: a missing object is an apimachinery NotFound (with a
// message for people), what a request lacks is a storeerr.MissingError, a refusal is
// marked storeerr.ErrDenied; the command layer adds the advice and the exit code.
package lookup

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/names"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Team reads a team; a missing one is NotFound.
func Team(ctx context.Context, s store.Reader, name string) (*v1alpha1.Team, error) {
	if name == "" {
		return nil, storeerr.Missing(storeerr.NeedTeam, "no team named")
	}
	t, err := s.GetTeam(ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, teamNotFound(ctx, s, name)
	}
	return t, err
}

// teamNotFound is the names error for a team that does not exist, with the teams that do
// when the identity may list them (an error listing them leaves them out: the answer is
// still that this one does not exist).
func teamNotFound(ctx context.Context, s store.Reader, name string) error {
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return names.Team(name, nil, false)
	}
	known := make([]string, 0, len(teams))
	for _, t := range teams {
		if t.Name != name { // created since the get: still not found for this request
			known = append(known, t.Name)
		}
	}
	return names.Team(name, known, true)
}

// Policy reads a ClusterCreationPolicy; a missing one is NotFound, named by its kind as
// the other lookups name theirs rather than by the API's resource.
func Policy(ctx context.Context, s store.Reader, name string) (*v1alpha1.ClusterCreationPolicy, error) {
	p, err := s.GetClusterCreationPolicy(ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, notFound("clustercreationpolicies", name, "ClusterCreationPolicy %q not found", name)
	}
	return p, err
}

// TeamClusters reads a team and every TenantCluster in its namespace.
func TeamClusters(ctx context.Context, s store.Reader, name string) (*v1alpha1.Team, []v1alpha1.TenantCluster, error) {
	t, err := Team(ctx, s, name)
	if err != nil {
		return nil, nil, err
	}
	clusters, err := s.ListClusters(ctx, t.TeamNamespace())
	return t, clusters, err
}

// Actor is who is asking and whether they are a platform admin.
type Actor struct {
	Identity      policy.Identity
	PlatformAdmin bool
	AdminReason   string
}

// WhoAmI resolves the identity and platform-admin status.
func WhoAmI(ctx context.Context, s store.Reader) (Actor, error) {
	id, err := s.Identity(ctx)
	if err != nil {
		return Actor{}, err
	}
	admin, why, err := s.PlatformAdmin(ctx, id)
	if err != nil {
		return Actor{}, err
	}
	return Actor{Identity: id, PlatformAdmin: admin, AdminReason: why}, nil
}

// OfflineActor is who asks, when the tools must judge who may write themselves: on
// manifests, where no server's RBAC stands behind the documents. Live, judge is false and
// nothing is read: the server decides.
func OfflineActor(ctx context.Context, s interface {
	store.Reader
	store.Kinded
}) (a Actor, judge bool, err error) {
	if s.Kind() == store.Live {
		return Actor{}, false, nil
	}
	a, err = WhoAmI(ctx, s)
	return a, err == nil, err
}

// TeamAndActor is the team named name and who asks: the two reads every command that
// changes one of a team's objects starts with.
func TeamAndActor(ctx context.Context, s store.Reader, name string) (*v1alpha1.Team, Actor, error) {
	team, err := Team(ctx, s, name)
	if err != nil {
		return nil, Actor{}, err
	}
	actor, err := WhoAmI(ctx, s)
	if err != nil {
		return nil, Actor{}, err
	}
	return team, actor, nil
}

// TeamEnvironment reads team and, when env is given and the team defines environments,
// checks that it is one of them, both as every command matches names (names): for a
// command that only filters by them. A team without environments takes any label, as on
// the server, so a filter by one is no unknown name.
func TeamEnvironment(ctx context.Context, s store.Reader, team, env string) (*v1alpha1.Team, error) {
	t, err := Team(ctx, s, team)
	if err != nil || env == "" || len(t.Spec.Environments) == 0 {
		return t, err
	}
	if _, err := RequireEnvironment(t, env); err != nil {
		return nil, err
	}
	return t, nil
}

// EnvironmentNames lists a team's environments in spec order.
func EnvironmentNames(t *v1alpha1.Team) []string {
	names := make([]string, 0, len(t.Spec.Environments))
	for _, e := range t.Spec.Environments {
		names = append(names, e.Name)
	}
	return names
}

// RequireEnvironment checks that env names one of the team's environments, exactly as
// the server matches the label; a *names.NotFoundError (NotFound) when it does not.
func RequireEnvironment(t *v1alpha1.Team, env string) (*v1alpha1.EnvironmentSpec, error) {
	if env == "" {
		return nil, storeerr.Missing(storeerr.NeedEnvironment, "no environment named")
	}
	return names.Environment(t, env)
}

// Provider picks the ProviderConfig a new cluster of the team uses: the flag, else the
// team's providerConfigRef, else the only one the team can see. A name is looked up in
// the team's namespace, then in butler-system. The reference is returned even when the
// object is missing, so the preflight reports it in the server's words.
func Provider(ctx context.Context, s store.Reader, t *v1alpha1.Team, flag string) (*v1alpha1.ProviderReference, *v1alpha1.ProviderConfig, error) {
	name := flag
	if name == "" && t.Spec.ProviderConfigRef != nil {
		name = t.Spec.ProviderConfigRef.Name
	}
	if name != "" {
		for _, ns := range []string{t.TeamNamespace(), v1alpha1.PlatformNamespace} {
			pc, err := s.GetProviderConfig(ctx, ns, name)
			if err == nil {
				return &v1alpha1.ProviderReference{Name: name, Namespace: ns}, pc, nil
			}
			if !apierrors.IsNotFound(err) {
				return nil, nil, err
			}
		}
		return &v1alpha1.ProviderReference{Name: name, Namespace: v1alpha1.PlatformNamespace}, nil, nil
	}
	visible, err := VisibleProviders(ctx, s, t)
	if err != nil {
		return nil, nil, err
	}
	switch len(visible) {
	case 0:
		return nil, nil, storeerr.Missing(storeerr.NeedProvider, "no ProviderConfig is visible to team %q", t.Name)
	case 1:
		pc := visible[0]
		return &v1alpha1.ProviderReference{Name: pc.Name, Namespace: pc.Namespace}, &pc, nil
	}
	names := make([]string, 0, len(visible))
	for _, pc := range visible {
		names = append(names, pc.Namespace+"/"+pc.Name)
	}
	return nil, nil, storeerr.Missing(storeerr.NeedProvider, "several ProviderConfigs are visible to team %q (%s)", t.Name, strings.Join(names, ", "))
}

// VisibleProviders are the platform-scoped ProviderConfigs and those scoped to the team.
func VisibleProviders(ctx context.Context, s store.Reader, t *v1alpha1.Team) ([]v1alpha1.ProviderConfig, error) {
	var out []v1alpha1.ProviderConfig
	for _, ns := range []string{t.TeamNamespace(), v1alpha1.PlatformNamespace} {
		list, err := s.ListProviderConfigs(ctx, ns)
		if err != nil {
			return nil, err
		}
		for _, pc := range list {
			if pc.ScopeType() == v1alpha1.ScopePlatform ||
				(pc.Spec.Scope != nil && pc.Spec.Scope.TeamRef != nil && pc.Spec.Scope.TeamRef.Name == t.Name) {
				out = append(out, pc)
			}
		}
	}
	return out, nil
}

// notFound is NotFound for a Butler resource, with a message for people instead of the
// server's generic one.
func notFound(resource, name, format string, a ...any) error {
	err := apierrors.NewNotFound(v1alpha1.Resource(resource), name)
	err.ErrStatus.Message = fmt.Sprintf(format, a...)
	return err
}
