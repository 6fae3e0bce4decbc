package providerutil

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// ManagedByLabel marks the Secrets the tools create.
const ManagedByLabel = "app.kubernetes.io/managed-by"

// ResourceName is the kubectl-style name of a ProviderConfig.
func ResourceName(name string) string { return "providerconfig.butler.butlerlabs.dev/" + name }

// SecretResourceName is the kubectl-style name of a Secret.
func SecretResourceName(name string) string { return "secret/" + name }

// Store is what the provider commands' shared checks read: the providers, teams and who
// asks (store.Reader), and which store it is (on manifests Authorize applies who may
// change a provider; live, the server's RBAC decides).
type Store interface {
	store.Reader
	store.Kinded
}

var _ Store = store.Store(nil)

// Find finds a ProviderConfig by name: in -n NAMESPACE exactly when given; with --team, in
// the team's namespace, then in butler-system (platform providers are every team's); else
// in butler-system, then in any namespace when the name is unique there.
func Find(ctx context.Context, s store.Reader, name, namespace, team string) (*v1alpha1.ProviderConfig, error) {
	var search []string
	if team != "" {
		t, err := lookup.Team(ctx, s, team)
		if err != nil {
			return nil, err
		}
		if namespace != "" && namespace != t.TeamNamespace() {
			return nil, cmdutil.UsageError("-n %s and --team %s disagree: the team's namespace is %s", namespace, team, t.TeamNamespace())
		}
		if namespace == "" {
			search = []string{t.TeamNamespace(), v1alpha1.PlatformNamespace}
		}
	}
	if namespace != "" {
		pc, err := s.GetProviderConfig(ctx, namespace, name)
		if apierrors.IsNotFound(err) {
			return nil, cmdutil.NotFoundError("ProviderConfig %q not found in namespace %q", name, namespace)
		}
		return pc, err
	}
	if search != nil {
		for _, ns := range search {
			pc, err := s.GetProviderConfig(ctx, ns, name)
			if err == nil || !apierrors.IsNotFound(err) {
				return pc, err
			}
		}
		return nil, cmdutil.NotFoundError("ProviderConfig %q not found in namespace %q or %q", name, search[0], search[1])
	}
	pc, err := s.GetProviderConfig(ctx, v1alpha1.PlatformNamespace, name)
	if err == nil || !apierrors.IsNotFound(err) {
		return pc, err
	}
	all, err := s.ListProviderConfigs(ctx, "")
	if err != nil {
		return nil, err
	}
	var found []v1alpha1.ProviderConfig
	for _, p := range all {
		if p.Name == name {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return nil, cmdutil.NotFoundError("ProviderConfig %q not found", name)
	case 1:
		return &found[0], nil
	}
	var where []string
	for _, p := range found {
		where = append(where, p.Namespace)
	}
	return nil, cmdutil.UsageError("ProviderConfig %q exists in several namespaces (%s): pass -n NAMESPACE or --team TEAM", name, strings.Join(where, ", "))
}

// Home is where a ProviderConfig of its scope lives: butler-system for platform scope, the
// team's namespace for team scope (the team is returned then).
func Home(ctx context.Context, s store.Reader, pc *v1alpha1.ProviderConfig) (string, *v1alpha1.Team, error) {
	if pc.ScopeType() != v1alpha1.ScopeTeam || pc.Spec.Scope.TeamRef == nil {
		return v1alpha1.PlatformNamespace, nil, nil
	}
	t, err := lookup.Team(ctx, s, pc.Spec.Scope.TeamRef.Name)
	if err != nil {
		return "", nil, err
	}
	return t.TeamNamespace(), t, nil
}

// Authorize applies, on manifests, who may change a ProviderConfig: platform admins, and
// for a team-scoped one also the team's admins (a team brings its own infrastructure).
// Live, the server's RBAC decides and nothing is checked here. verb is "create",
// "delete", ...; team is the scope's team (nil for platform scope).
func Authorize(ctx context.Context, s Store, pc *v1alpha1.ProviderConfig, team *v1alpha1.Team, verb string) error {
	actor, judge, err := lookup.OfflineActor(ctx, s)
	if err != nil || !judge || actor.PlatformAdmin {
		return err
	}
	if team != nil {
		if policy.IsTeamAdmin(team, actor.Identity, false) {
			return nil
		}
		return cmdutil.DeniedError(fmt.Errorf("user %q may not %s ProviderConfig %q: team-scoped ProviderConfigs of team %q are managed by its team admins and platform admins",
			actor.Identity.Username, verb, pc.Name, team.Name))
	}
	return cmdutil.DeniedError(fmt.Errorf("user %q may not %s ProviderConfig %q: platform-scoped ProviderConfigs are managed by platform admins",
		actor.Identity.Username, verb, pc.Name))
}

// AuthorizeByScope is Authorize for an existing pc, its scope's team read from the store.
// A team that no longer exists is no reason to keep its provider: pc is judged as one
// without a team then.
func AuthorizeByScope(ctx context.Context, s Store, pc *v1alpha1.ProviderConfig, verb string) error {
	var team *v1alpha1.Team
	if pc.ScopeType() == v1alpha1.ScopeTeam && pc.Spec.Scope.TeamRef != nil {
		t, err := s.GetTeam(ctx, pc.Spec.Scope.TeamRef.Name)
		switch {
		case err == nil:
			team = t
		case !apierrors.IsNotFound(err):
			return err
		}
	}
	return Authorize(ctx, s, pc, team, verb)
}

// SecretRef is the namespace and name of a ProviderConfig's credentials Secret; the
// namespace defaults to the ProviderConfig's.
func SecretRef(pc *v1alpha1.ProviderConfig) (namespace, name string) {
	ns := pc.Spec.CredentialsRef.Namespace
	if ns == "" {
		ns = pc.Namespace
	}
	if ns == "" {
		ns = v1alpha1.PlatformNamespace
	}
	return ns, pc.Spec.CredentialsRef.Name
}

// NewSecret is the credentials Secret a ProviderConfig references, holding creds.
func NewSecret(pc *v1alpha1.ProviderConfig, creds *Credentials) *corev1.Secret {
	ns, name := SecretRef(pc)
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: ns,
			Labels:    map[string]string{ManagedByLabel: "butleradm"},
		},
		Type: corev1.SecretTypeOpaque,
		Data: creds.Data(),
	}
}

// RedactedSecret is a Secret for printing: the key names, every value <redacted>.
func RedactedSecret(sec *corev1.Secret) *unstructured.Unstructured {
	md := map[string]any{"name": sec.Name, "namespace": sec.Namespace}
	if len(sec.Labels) > 0 {
		labels := map[string]any{} // unstructured holds only JSON types (DeepCopy)
		for k, v := range sec.Labels {
			labels[k] = v
		}
		md["labels"] = labels
	}
	data := map[string]any{}
	for k := range sec.Data {
		data[k] = Redacted
	}
	for k := range sec.StringData {
		data[k] = Redacted
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   md,
		"type":       string(sec.Type),
		"data":       data,
	}}
}

// WithTypeMeta returns a copy of pc with apiVersion and kind set, for printing.
func WithTypeMeta(pc v1alpha1.ProviderConfig) *v1alpha1.ProviderConfig {
	pc.APIVersion, pc.Kind = v1alpha1.APIVersion, v1alpha1.KindProviderConfig
	return &pc
}

// Uses reports whether a TenantCluster references pc, by the webhook's rule: same name,
// and the reference's namespace (empty means butler-system) is pc's.
func Uses(pc *v1alpha1.ProviderConfig, tc *v1alpha1.TenantCluster) bool {
	ref := tc.Spec.ProviderConfigRef
	if ref == nil || ref.Name != pc.Name {
		return false
	}
	ns, pcNS := ref.Namespace, pc.Namespace
	if ns == "" {
		ns = v1alpha1.DefaultProviderNamespace
	}
	if pcNS == "" {
		pcNS = v1alpha1.DefaultProviderNamespace
	}
	return ns == pcNS
}

// ClustersUsing are the TenantClusters that reference pc, as namespace/name, sorted.
func ClustersUsing(pc *v1alpha1.ProviderConfig, clusters []v1alpha1.TenantCluster) []string {
	var out []string
	for i := range clusters {
		if Uses(pc, &clusters[i]) {
			out = append(out, clusters[i].Namespace+"/"+clusters[i].Name)
		}
	}
	sort.Strings(out)
	return out
}

// Teams says which teams may use pc: "*" (every team) for platform scope, else the team.
func Teams(pc *v1alpha1.ProviderConfig) string {
	if pc.ScopeType() == v1alpha1.ScopeTeam {
		if pc.Spec.Scope.TeamRef != nil && pc.Spec.Scope.TeamRef.Name != "" {
			return pc.Spec.Scope.TeamRef.Name
		}
		return "-"
	}
	return "*"
}
