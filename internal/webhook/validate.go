package webhook

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// userOf is the requesting identity of a review.
func userOf(req *admissionv1.AdmissionRequest) User {
	u := User{Username: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups}
	if len(req.UserInfo.Extra) > 0 {
		u.Extra = make(map[string][]string, len(req.UserInfo.Extra))
		for k, v := range req.UserInfo.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// tenantCluster is the TenantCluster webhook (docs/rules.md §5) with policy.AdmitCluster
// deciding: the request's user, the Team read fresh (NotFound: no env or team checks), the
// TenantClusters of the namespace, the referenced ProviderConfig (NotFound: the policy's
// "Not found").
func (h *Handler) tenantCluster(ctx context.Context, req *admissionv1.AdmissionRequest) verdict {
	op, checked := operation(req)
	if !checked {
		return allow()
	}
	tc := &v1alpha1.TenantCluster{}
	if err := h.decodeInto(req.Object, tc, "object"); err != nil {
		return errored(http.StatusBadRequest, err)
	}
	if tc.Namespace == "" {
		tc.Namespace = req.Namespace
	}
	var old *v1alpha1.TenantCluster
	if op == policy.Update {
		old = &v1alpha1.TenantCluster{}
		if err := h.decodeInto(req.OldObject, old, "oldObject"); err != nil {
			return errored(http.StatusBadRequest, err)
		}
	}
	if op == policy.Update && h.on(policy.RuleUnchangedUpdate) && unchangedCluster(old, tc) {
		return allow()
	}
	creq := policy.ClusterRequest{Operation: op, Cluster: tc, Old: old, Username: req.UserInfo.Username}

	// The environment label guard runs first and alone on the server, before it reads
	// anything: answer it without a read.
	if op == policy.Update {
		if d := policy.AdmitCluster(creq); len(d.Violations) > 0 && d.Violations[0].Rule == policy.RuleEnvLabelImmutable {
			return decisionVerdict(d)
		}
	}

	if ref := tc.Spec.TeamRef; ref != nil && ref.Name != "" {
		team, err := h.reader.GetTeam(ctx, ref.Name)
		switch {
		case err == nil:
			creq.Team = team
		case apierrors.IsNotFound(err):
			// No such team: the server skips the environment and team checks.
		default:
			return errored(http.StatusInternalServerError, fmt.Errorf("fetch team %q: %w", ref.Name, err))
		}
	}
	// The namespace's clusters are read only when a rule can count them: every create, and
	// updates that grow the cluster. A label or annotation patch (a migration's) reads none.
	// A cached reader decides from its figures instead, below.
	dec, cached := h.reader.(clusterDecider)
	if !cached && (creq.Team != nil || tc.Spec.ProviderConfigRef != nil) && creq.NeedsSiblings() {
		siblings, err := h.reader.ListClusters(ctx, tc.Namespace)
		if err != nil {
			return errored(http.StatusInternalServerError, fmt.Errorf("list TenantClusters in namespace %q: %w", tc.Namespace, err))
		}
		creq.Siblings = siblings
	}
	if ref := tc.Spec.ProviderConfigRef; ref != nil {
		ns := ref.Namespace
		if ns == "" {
			ns = v1alpha1.DefaultProviderNamespace
		}
		pc, err := h.reader.GetProviderConfig(ctx, ns, ref.Name)
		switch {
		case err == nil:
			creq.ProviderConfig = pc
		case apierrors.IsNotFound(err):
			// The policy answers `spec.providerConfigRef.name: Not found`.
		default:
			return errored(http.StatusInternalServerError, fmt.Errorf("failed to fetch ProviderConfig %s/%s: %w", ns, ref.Name, err))
		}
	}
	if op == policy.Create && creq.Team != nil {
		creq.Addons = defaultAddons(creq.Team, tc.Labels[v1alpha1.LabelEnvironment])
	}
	if v, failed := h.clusterPolicies(ctx, &creq); failed {
		return v
	}
	if cached {
		return h.decideCached(dec, req, creq)
	}
	return decisionVerdict(policy.AdmitCluster(creq).Without(h.off))
}

// clusterDecider is a Reader that keeps the namespace's figures itself (CachedReader).
type clusterDecider interface {
	DecideClusters(namespace string, reserve *v1alpha1.TenantCluster, create bool, decide func(*policy.SiblingIndex) bool) error
}

// decideCached decides a TenantCluster create or update against the namespace's figures,
// alone among that namespace's reviews; what it admits is reserved (but not for a dry
// run), so the next review counts it before the cache does. Every create is reserved,
// whatever rules applied to it, since it counts in the others' caps; an update, when it
// changes what the caps count (a scale, a relabelling).
func (h *Handler) decideCached(dec clusterDecider, req *admissionv1.AdmissionRequest, creq policy.ClusterRequest) verdict {
	reserve := creq.Cluster
	if req.DryRun != nil && *req.DryRun {
		reserve = nil
	}
	create := creq.Operation != policy.Update
	if !create && sameFigures(figures(creq.Old), figures(creq.Cluster)) {
		reserve = nil
	}
	var d policy.Decision
	err := dec.DecideClusters(creq.Cluster.Namespace, reserve, create, func(x *policy.SiblingIndex) bool {
		creq.SiblingIndex = x
		d = policy.AdmitCluster(creq).Without(h.off)
		return d.Allowed()
	})
	if err != nil {
		return errored(http.StatusInternalServerError, fmt.Errorf("TenantClusters in namespace %q: %w", creq.Cluster.Namespace, err))
	}
	return decisionVerdict(d)
}

// unchangedCluster is true for an update that changes nothing the rules read: not the
// spec, the labels or the annotations (a finalizer removed, for example). Such an update
// is allowed without reads: it cannot break a rule that the object did not break already,
// and refusing it could keep a cluster that breaks a limit lowered later (or one created
// before the webhook) from ever finishing its deletion. Team updates that leave the spec
// alone, and ProviderConfig updates likewise, are allowed for the same reason.
func unchangedCluster(old, cur *v1alpha1.TenantCluster) bool {
	return equality.Semantic.DeepEqual(old.Spec, cur.Spec) &&
		equality.Semantic.DeepEqual(old.Labels, cur.Labels) &&
		equality.Semantic.DeepEqual(old.Annotations, cur.Annotations)
}

// defaultAddons are the addons the controller installs on a new cluster by itself (the
// team's defaultAddons, then its environment's), which the CLI checks against the team's
// addon restrictions too. Named extras are TenantAddon objects, which this webhook does not
// see. The version passed only keeps ResolveDefaults from failing on a team whose own
// default version is malformed: the addons do not depend on it.
func defaultAddons(team *v1alpha1.Team, env string) []string {
	d, err := policy.ResolveDefaults(team, env, policy.Explicit{KubernetesVersion: "v0.0.0"})
	if err != nil {
		return nil
	}
	return d.Addons
}

func decisionVerdict(d policy.Decision) verdict {
	if d.Allowed() {
		return allow()
	}
	rules := make([]string, 0, len(d.Violations))
	for _, v := range d.Violations {
		rules = append(rules, v.Rule)
	}
	return denied(d.Err().Error(), rules...)
}

// team is the Team webhook (docs/rules.md §8) with policy.AdmitTeam deciding, for the
// request's user and groups. Whether the user is a platform admin is asked only when the
// answer matters (a limits change), as the server does: User objects and IdentityProviders
// first (docs/rules.md §2.3), then a SubjectAccessReview for update on teams.
func (h *Handler) team(ctx context.Context, req *admissionv1.AdmissionRequest) verdict {
	op, checked := operation(req)
	if !checked {
		return allow()
	}
	team := &v1alpha1.Team{}
	if err := h.decodeInto(req.Object, team, "object"); err != nil {
		return errored(http.StatusBadRequest, err)
	}
	var old *v1alpha1.Team
	if op == policy.Update {
		old = &v1alpha1.Team{}
		if err := h.decodeInto(req.OldObject, old, "oldObject"); err != nil {
			return errored(http.StatusBadRequest, err)
		}
	}
	if op == policy.Update && h.on(policy.RuleUnchangedUpdate) && reflect.DeepEqual(old.Spec, team.Spec) {
		return allow() // see unchangedCluster; compared as the server compares limits
	}
	user := userOf(req)
	id := user.identity()
	d := policy.AdmitTeam(op, old, team, id, false)
	if d != nil && (d.Rule == policy.RuleTeamResourceLimits || d.Rule == policy.RuleTeamEnvLimits) {
		admin, err := h.platformAdmin(ctx, user)
		if err != nil {
			return errored(http.StatusInternalServerError, fmt.Errorf("resolve platform admin: %w", err))
		}
		if admin {
			d = policy.AdmitTeam(op, old, team, id, true)
		}
	}
	if d == nil && op == policy.Update && h.on(policy.RuleTeamAuthorityAsWas) {
		// Judged on the Team as it was: only asked when the new Team alone makes the
		// requester a team admin, and then only a platform admin passes.
		if dd := policy.TeamAuthorityAsWas(old, team, id, false); dd != nil {
			admin, err := h.platformAdmin(ctx, user)
			if err != nil {
				return errored(http.StatusInternalServerError, fmt.Errorf("resolve platform admin: %w", err))
			}
			if !admin {
				d = dd
			}
		}
	}
	if d != nil {
		return denied(d.Message, d.Rule)
	}
	return allow()
}

// platformAdmin is the server's test (docs/rules.md §2.3): the first User whose spec.email
// matches the username decides by its isPlatformAdmin alone; only when none matches, a
// SubjectAccessReview for update on teams.butler.butlerlabs.dev with the request's user and
// groups.
func (h *Handler) platformAdmin(ctx context.Context, u User) (bool, error) {
	users, err := h.reader.ListUsers(ctx)
	if err != nil {
		return false, fmt.Errorf("list users: %w", err)
	}
	if ok, decided, _ := policy.PlatformAdmin(u.identity(), users); decided {
		return ok, nil
	}
	ok, err := h.reader.CanUpdateTeams(ctx, u)
	if err != nil {
		return false, fmt.Errorf("subjectaccessreview: %w", err)
	}
	return ok, nil
}

// providerConfig is the ProviderConfig webhook (docs/rules.md §9): on create and update
// policy.ValidateProviderConfig, as one aggregate (an update that does not change the spec
// is allowed); on delete policy.ProviderDeleteGuard over every TenantCluster in every
// namespace.
func (h *Handler) providerConfig(ctx context.Context, req *admissionv1.AdmissionRequest) verdict {
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
		pc := &v1alpha1.ProviderConfig{}
		if err := h.decodeInto(req.Object, pc, "object"); err != nil {
			return errored(http.StatusBadRequest, err)
		}
		if req.Operation == admissionv1.Update {
			// An update that leaves the spec alone (a finalizer removed, labels, status
			// through the main resource) is not held to rules the spec may have broken
			// before the webhook was installed: refusing it could leave a ProviderConfig
			// that cannot finish being deleted.
			old := &v1alpha1.ProviderConfig{}
			if err := h.decodeInto(req.OldObject, old, "oldObject"); err != nil {
				return errored(http.StatusBadRequest, err)
			}
			if h.on(policy.RuleUnchangedUpdate) && equality.Semantic.DeepEqual(old.Spec, pc.Spec) {
				return allow()
			}
		}
		if errs := policy.ValidateProviderConfig(pc); len(errs) > 0 {
			rules := make([]string, 0, len(errs))
			for _, e := range errs {
				rules = append(rules, e.Field)
			}
			return denied(errs.ToAggregate().Error(), rules...)
		}
		return allow()
	case admissionv1.Delete:
		pc := &v1alpha1.ProviderConfig{}
		if len(req.OldObject.Raw) > 0 {
			if err := h.decodeInto(req.OldObject, pc, "oldObject"); err != nil {
				return errored(http.StatusBadRequest, err)
			}
		}
		if pc.Name == "" {
			pc.Name = req.Name
		}
		if pc.Namespace == "" {
			pc.Namespace = req.Namespace
		}
		clusters, err := h.reader.ListClusters(ctx, "")
		if err != nil {
			return errored(http.StatusInternalServerError, fmt.Errorf("list TenantClusters: %w", err))
		}
		if ferr := policy.ProviderDeleteGuard(pc, clusters); ferr != nil {
			return denied(ferr.Error(), "provider-in-use")
		}
		return allow()
	default:
		return allow()
	}
}

// operation is the request's operation as the policy library names it; false for the
// operations the webhooks let through unchecked (delete, connect).
func operation(req *admissionv1.AdmissionRequest) (policy.Operation, bool) {
	switch req.Operation {
	case admissionv1.Create:
		return policy.Create, true
	case admissionv1.Update:
		return policy.Update, true
	}
	return "", false
}
