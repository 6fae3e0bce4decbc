package applyutil

import (
	"context"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Judged is one object with the preflight's answer: whether it exists (then it is an
// update of Current), the cluster as the server would hold it after the apply (Result),
// and the decision.
type Judged struct {
	Object
	Current  *v1alpha1.TenantCluster // nil: a create
	Result   *v1alpha1.TenantCluster
	Decision policy.Decision
	// Refusal is a refusal before the rules (the caller's role), nil when none.
	Refusal error
}

// Create reports whether the object does not exist yet.
func (j *Judged) Create() bool { return j.Current == nil }

// Allowed reports whether the preflight lets the object through.
func (j *Judged) Allowed() bool { return j.Refusal == nil && j.Decision.Allowed() }

// Err is the refusal in the server's words, nil when allowed.
func (j *Judged) Err() error {
	if j.Refusal != nil {
		return j.Refusal
	}
	return j.Decision.Err()
}

// teamState is a team as the preflight reads it once, with its clusters as they will be
// once the objects judged before are applied.
type teamState struct {
	team     *v1alpha1.Team
	clusters []v1alpha1.TenantCluster
}

// judge reads each team, its clusters, the policies and the caller once, whatever the
// number of objects.
type judge struct {
	s        store.Reader
	warn     io.Writer
	actor    lookup.Actor
	teams    map[string]*teamState
	policies []v1alpha1.ClusterCreationPolicy
	pcs      map[string]*v1alpha1.ProviderConfig
}

// Judge runs the preflight on every object in order, as the server would admit them one
// after another: each is a create when no cluster of its namespace and name exists, else an
// update of it, judged with the clusters the objects before it leave (so a batch cannot pass
// a quota that its objects together break). Read errors end it; refusals are in the answers.
func Judge(ctx context.Context, s store.Reader, warn io.Writer, objs []Object) ([]Judged, error) {
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return nil, err
	}
	j := &judge{s: s, warn: warn, actor: actor, teams: map[string]*teamState{}, pcs: map[string]*v1alpha1.ProviderConfig{}}
	if j.policies, err = s.ListClusterCreationPolicies(ctx); apierrors.IsForbidden(err) {
		fmt.Fprintf(warn, "Warning: cannot read ClusterCreationPolicies, so they are not checked here (the server applies them): %v\n", err)
		j.policies, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Judged, 0, len(objs))
	seen := map[string]string{}
	for _, o := range objs {
		ts, err := j.team(ctx, o)
		if err != nil {
			return nil, err
		}
		key := o.Cluster.Namespace + "/" + o.Cluster.Name
		if prev, dup := seen[key]; dup {
			return nil, storeerr.BadInput(fmt.Errorf("%s: tenantcluster %s is also at %s: apply each object once", o.Where(), inert.Text(key), prev))
		}
		seen[key] = o.Where()
		jd, err := j.one(ctx, ts, o)
		if err != nil {
			return nil, err
		}
		out = append(out, jd)
	}
	return out, nil
}

// team reads the object's team (spec.teamRef) once, and puts the object in the team's
// namespace when it names none.
func (j *judge) team(ctx context.Context, o Object) (*teamState, error) {
	c := o.Cluster
	name := c.TeamName()
	if name == "" {
		return nil, storeerr.BadInput(fmt.Errorf("%s: tenantcluster %s: spec.teamRef.name: Required value: apply judges a cluster by its team's rules", o.Where(), inert.Text(c.Name)))
	}
	ts, ok := j.teams[name]
	if !ok {
		team, clusters, err := lookup.TeamClusters(ctx, j.s, name)
		if err != nil {
			return nil, fmt.Errorf("%s: tenantcluster %s: %w", o.Where(), inert.Text(c.Name), err)
		}
		ts = &teamState{team: team, clusters: clusters}
		j.teams[name] = ts
	}
	ns := ts.team.TeamNamespace()
	switch c.Namespace {
	case "":
		c.Namespace = ns
	case ns:
	default:
		return nil, storeerr.BadInput(fmt.Errorf("%s: tenantcluster %s: metadata.namespace %q is not the namespace of team %q (%q)",
			o.Where(), inert.Text(c.Name), inert.Text(c.Namespace), name, ns))
	}
	return ts, nil
}

// one judges one object and, when it passes, records it among its team's clusters.
func (j *judge) one(ctx context.Context, ts *teamState, o Object) (Judged, error) {
	c := o.Cluster
	jd := Judged{Object: o}
	at := -1
	for i := range ts.clusters {
		if ts.clusters[i].Name == c.Name {
			at = i
		}
	}
	req := policy.ClusterRequest{Team: ts.team, Siblings: ts.clusters, Username: j.actor.Identity.Username, Policies: j.policies}
	if at < 0 {
		if c.Annotations[v1alpha1.AnnotationCreatorEmail] == "" {
			// As cluster create: the tools write who creates (docs/rules.md §1.3).
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[v1alpha1.AnnotationCreatorEmail] = policy.NormalizeEmail(j.actor.Identity.Username)
		}
		jd.Result = c.DeepCopy()
		env := c.Environment()
		if role := policy.EnvironmentRole(ts.team, env, j.actor.Identity, j.actor.PlatformAdmin); !role.Role.CanOperate() {
			jd.Refusal = storeerr.Denied(fmt.Errorf("user %q may not create clusters in %s: role %s (%s); creating clusters needs operator or admin",
				j.actor.Identity.Username, where(ts.team.Name, env), role.Role, role.Reason))
		}
		req.Operation = policy.Create
	} else {
		jd.Current = ts.clusters[at].DeepCopy()
		keepCreator(c, jd.Current)
		merged, err := store.MergeApplied(jd.Current, c)
		if err != nil {
			return jd, err
		}
		jd.Result = merged
		if _, err := lookup.RequireOperator(ts.team, jd.Current, j.actor, "change"); err != nil {
			jd.Refusal = err
		}
		req.Operation, req.Old = policy.Update, jd.Current
	}
	pc, err := j.provider(ctx, jd.Result)
	if err != nil {
		return jd, err
	}
	req.Cluster, req.ProviderConfig = jd.Result, pc
	if jd.Refusal == nil {
		jd.Decision = policy.AdmitCluster(req)
	}
	if jd.Allowed() {
		if at < 0 {
			ts.clusters = append(ts.clusters, *jd.Result)
		} else {
			ts.clusters[at] = *jd.Result
		}
	}
	return jd, nil
}

// provider reads the ProviderConfig the cluster names, once per name; nil when it names
// none or it is missing (the rules then say so in the server's words).
func (j *judge) provider(ctx context.Context, c *v1alpha1.TenantCluster) (*v1alpha1.ProviderConfig, error) {
	ref := c.Spec.ProviderConfigRef
	if ref == nil {
		return nil, nil
	}
	ns := ref.Namespace
	if ns == "" {
		ns = v1alpha1.DefaultProviderNamespace
	}
	key := ns + "/" + ref.Name
	if pc, ok := j.pcs[key]; ok {
		return pc, nil
	}
	pc, err := j.s.GetProviderConfig(ctx, ns, ref.Name)
	if apierrors.IsNotFound(err) {
		pc, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	j.pcs[key] = pc
	return pc, nil
}

// where names the team and environment as cluster create's refusal does.
func where(team, env string) string {
	if env == "" {
		return fmt.Sprintf("team %q", team)
	}
	return fmt.Sprintf("environment %q of team %q", env, team)
}

// Refused is the preflight's refusal of a batch: every refused object with the server's
// message, and that nothing was applied. Its exit code is a denial's (4).
func Refused(judged []Judged) error {
	var errs []error
	for i := range judged {
		if jd := &judged[i]; !jd.Allowed() {
			errs = append(errs, fmt.Errorf("%s (%s): %w", ResourceName(jd.Cluster.Name), jd.Where(), jd.Err()))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	errs = append(errs, fmt.Errorf("nothing was applied: the preflight refused %d of %d object(s)", len(errs), len(judged)))
	return storeerr.Denied(errors.Join(errs...))
}

// Warn prints the warnings of the rules that let the objects through, each once per object.
func Warn(w io.Writer, judged []Judged) {
	for i := range judged {
		for _, msg := range judged[i].Decision.Warnings() {
			fmt.Fprintf(w, "Warning: %s: %s\n", ResourceName(judged[i].Cluster.Name), inert.Text(msg))
		}
	}
}

// keepCreator carries the cluster's creator-email into an update that leaves it out: the
// tools wrote it on create, so their field manager owns it, and an apply without it would
// remove it, which the server refuses (the annotation is immutable, docs/rules.md §5.3).
func keepCreator(c, cur *v1alpha1.TenantCluster) {
	v, ok := cur.Annotations[v1alpha1.AnnotationCreatorEmail]
	if !ok {
		return
	}
	if _, set := c.Annotations[v1alpha1.AnnotationCreatorEmail]; set {
		return
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[v1alpha1.AnnotationCreatorEmail] = v
}
