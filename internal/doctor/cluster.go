package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// checkAPI asks the server its version: reachable, and which Kubernetes.
func checkAPI(ctx context.Context, e *env) Check {
	v, err := e.clients.serverVersion(ctx)
	if err != nil {
		return Check{Name: "api", Verdict: Fail, Detail: fmt.Sprintf("%s did not answer: %v", redact.URL(e.cfg.Host), err),
			Next: "check --kubeconfig, --context and the network path to the server (kubectl cluster-info)"}
	}
	return Check{Name: "api", Verdict: Pass, Detail: fmt.Sprintf("Kubernetes %s at %s", inert.Text(v.GitVersion), redact.URL(e.cfg.Host))}
}

// checkIdentity says who the tools act as, as the server says, and their platform role.
func checkIdentity(ctx context.Context, e *env) []Check {
	id, err := e.s.Identity(ctx)
	if err != nil {
		return []Check{readFailed("identity", "who you are (SelfSubjectReview)", err, e.o.Scope)}
	}
	admin, why, err := e.s.PlatformAdmin(ctx, id)
	if err != nil {
		return []Check{readFailed("identity", "whether you are a platform admin", err, e.o.Scope)}
	}
	who := inert.Text(id.Username)
	if len(id.Groups) > 0 {
		who += " (groups " + inert.Text(strings.Join(id.Groups, ", ")) + ")"
	}
	if e.source != "" {
		who += " for " + inert.Text(e.source) + ";"
	} else {
		who += ","
	}
	if admin {
		return []Check{{Name: "identity", Verdict: Pass, Detail: who + " platform admin: " + inert.Text(why)}}
	}
	c := Check{Name: "identity", Verdict: Pass, Detail: who + " not a platform admin"}
	if e.o.Scope == Operator {
		c.Verdict = Warn
		c.Next = "butleradm's platform commands and several checks here need a platform admin: use an admin's kubeconfig"
	}
	return []Check{c}
}

// checkController looks for Butler's controller in the platform namespace: a Deployment
// named butler-controller (the chart's name), ready. A control plane without one (a test
// plane, an installation in progress) is a skip: the tools work, but nothing reconciles.
func checkController(ctx context.Context, e *env) []Check {
	ns := v1alpha1.PlatformNamespace
	ds, err := butlerclient.List(ctx, e.clients.apps, ns, "deployments", func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
	if err != nil {
		return []Check{readFailed("controller", "Deployments in "+ns, err, e.o.Scope)}
	}
	found := matching(ds, func(d *appsv1.Deployment) bool { return strings.Contains(d.Name, "butler-controller") })
	if len(found) == 0 {
		e.noController = true
		return []Check{{Name: "controller", Verdict: Skip, Detail: "no butler-controller Deployment in " + ns + ": nothing reconciles Butler's objects here, so the checks of their status below say only what is recorded",
			Next: "install Butler's controller (the butler-controller chart) if this is a management cluster"}}
	}
	return deploymentsReady("controller", found)
}

// checkSteward checks Steward, which runs tenant control planes: its CRD (as the tools
// know it) and its Deployment, in any namespace.
func checkSteward(ctx context.Context, e *env) []Check {
	want, err := known()
	if err != nil {
		return []Check{{Name: "steward", Verdict: Fail, Detail: err.Error()}}
	}
	c := checkCRD(ctx, e, want[stewardCRD], stewardv1alpha1.GroupVersion.Version)
	c.Name = "steward crd"
	if c.Verdict == Pass {
		c.Detail = stewardCRD
	}
	if c.Verdict == Fail && strings.HasPrefix(c.Detail, "missing") {
		c.Next = "install Steward: cluster freeze and thaw, and clusters' control planes, need it"
	}
	out := []Check{c}
	ds, err := butlerclient.List(ctx, e.clients.apps, "", "deployments", func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
	if err != nil {
		return append(out, readFailed("steward", "Deployments", err, e.o.Scope))
	}
	// Steward's own Deployment, by its chart's name label or its name: not every workload
	// with steward in its name (a tenant's, scaled to zero, must not fail the check).
	found := matching(ds, func(d *appsv1.Deployment) bool {
		return d.Labels["app.kubernetes.io/name"] == "steward" || d.Name == "steward" || d.Name == "steward-controller-manager"
	})
	if len(found) == 0 {
		return append(out, Check{Name: "steward", Verdict: Skip, Detail: "no steward Deployment found: nothing runs tenant control planes here",
			Next: "install Steward if this is a management cluster"})
	}
	return append(out, deploymentsReady("steward", found)...)
}

func matching(ds []appsv1.Deployment, f func(*appsv1.Deployment) bool) []appsv1.Deployment {
	var out []appsv1.Deployment
	for i := range ds {
		if f(&ds[i]) {
			out = append(out, ds[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	return out
}

// deploymentsReady is one check per Deployment: every wanted replica ready.
func deploymentsReady(name string, ds []appsv1.Deployment) []Check {
	var out []Check
	for i := range ds {
		d := &ds[i]
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		ref := inert.Text(d.Namespace + "/" + d.Name)
		what := fmt.Sprintf("%s: %d of %d replicas ready", ref, d.Status.ReadyReplicas, want)
		switch {
		case want == 0:
			out = append(out, Check{Name: name, Verdict: Fail, Detail: ref + " is scaled to 0", Next: "kubectl -n " + inert.Text(d.Namespace) + " scale deployment " + inert.Text(d.Name) + " --replicas 2"})
		case d.Status.ReadyReplicas < want:
			out = append(out, Check{Name: name, Verdict: Fail, Detail: what, Next: "kubectl -n " + inert.Text(d.Namespace) + " describe deployment " + inert.Text(d.Name) + " (then its pods' logs)"})
		default:
			out = append(out, Check{Name: name, Verdict: Pass, Detail: what})
		}
	}
	return out
}
