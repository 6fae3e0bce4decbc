package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// checkProviders checks each ProviderConfig the identity can read (a developer: the
// platform's, in the platform namespace) for what the controller recorded: validated and
// ready. One with nothing recorded is a warning: nothing has looked at it yet.
func checkProviders(ctx context.Context, e *env) []Check {
	ns := ""
	if e.o.Scope == Developer {
		ns = v1alpha1.PlatformNamespace
	}
	pcs, err := e.s.ListProviderConfigs(ctx, ns)
	if err != nil {
		return []Check{readFailed("providers", "ProviderConfigs", err, e.o.Scope)}
	}
	if len(pcs) == 0 {
		return []Check{{Name: "providers", Verdict: Fail, Detail: "no ProviderConfig: no cluster can be created",
			Next: "butleradm provider create (see butleradm provider create --help)"}}
	}
	var out []Check
	ok := 0
	for i := range pcs {
		c := checkProvider(&pcs[i], e.noController)
		if c.Verdict == Pass {
			ok++
			continue
		}
		out = append(out, c)
	}
	if ok > 0 {
		out = append([]Check{{Name: "providers", Verdict: Pass, Detail: fmt.Sprintf("%d of %d ProviderConfigs validated and ready", ok, len(pcs))}}, out...)
	}
	return out
}

func checkProvider(pc *v1alpha1.ProviderConfig, noController bool) Check {
	ref := inert.Text(pc.Namespace + "/" + pc.Name)
	c := Check{Name: "provider " + ref}
	st := &pc.Status
	if len(st.Conditions) == 0 && st.LastValidationTime == nil && !st.Validated && !st.Ready {
		c.Verdict, c.Detail = Warn, "no status recorded: not validated yet"
		c.Next = "the controller validates it; if it runs, kubectl -n " + inert.Text(pc.Namespace) + " describe providerconfig " + inert.Text(pc.Name)
		if noController {
			c.Verdict, c.Detail, c.Next = Skip, "no status recorded, and no controller here to validate it", ""
		}
		return c
	}
	var bad []string
	for _, t := range []string{"Validated", "Ready"} {
		if cond := meta.FindStatusCondition(st.Conditions, t); cond != nil && cond.Status != "True" {
			bad = append(bad, fmt.Sprintf("%s %s: %s", t, inert.Text(cond.Reason), inert.Text(cond.Message)))
		}
	}
	if len(bad) == 0 && !st.Validated {
		bad = append(bad, "not validated")
	}
	if len(bad) == 0 && !st.Ready {
		bad = append(bad, "not ready")
	}
	if len(bad) > 0 {
		c.Verdict, c.Detail = Fail, strings.Join(bad, "; ")
		c.Next = "butleradm provider validate " + inert.Text(pc.Name) + " -n " + inert.Text(pc.Namespace) + ", then fix its credentials or endpoint"
		return c
	}
	c.Verdict, c.Detail = Pass, ref
	return c
}

// teamClusters is each readable team with its clusters; a team whose clusters cannot be
// read is a check of its own.
type teamClusters struct {
	team     *v1alpha1.Team
	clusters []v1alpha1.TenantCluster
}

func (e *env) teams(ctx context.Context) ([]teamClusters, []Check) {
	if e.read != nil || e.readChecks != nil {
		return e.read, e.readChecks
	}
	teams, err := e.s.ListTeams(ctx)
	if err != nil {
		e.readChecks = []Check{readFailed("teams", "Teams", err, e.o.Scope)}
		return nil, e.readChecks
	}
	for i := range teams {
		t := &teams[i]
		cs, err := e.s.ListClusters(ctx, t.TeamNamespace())
		if err != nil {
			if e.o.Scope == Developer && isForbidden(err) {
				continue // not the developer's team: not theirs to check
			}
			e.readChecks = append(e.readChecks, readFailed("team "+inert.Text(t.Name), "the clusters of team "+inert.Text(t.Name), err, e.o.Scope))
			continue
		}
		e.read = append(e.read, teamClusters{team: t, clusters: cs})
	}
	if e.read == nil {
		e.read = []teamClusters{}
	}
	return e.read, e.readChecks
}

// checkQuotas names every team over a limit of its quota, with the figures.
func checkQuotas(ctx context.Context, e *env) []Check {
	read, failed := e.teams(ctx)
	out := append([]Check(nil), failed...)
	over := 0
	for _, tc := range read {
		q := policy.TeamQuota(tc.team, tc.clusters)
		if q.Status != policy.QuotaExceeded {
			continue
		}
		over++
		var lines []string
		for _, l := range q.Lines {
			if l.Status == policy.QuotaExceeded {
				lines = append(lines, fmt.Sprintf("%s %s of %s", l.Resource, l.Used, l.Limit))
			}
		}
		out = append(out, Check{Name: "quota " + inert.Text(tc.team.Name), Verdict: Warn,
			Detail: "over its quota: " + strings.Join(lines, ", ") + "; new clusters and scale-ups are refused",
			Next:   "butlerctl team get " + inert.Text(tc.team.Name) + "; raise the limit or delete clusters"})
	}
	if over == 0 && len(read) > 0 {
		out = append([]Check{{Name: "quotas", Verdict: Pass, Detail: count(len(read), "team") + ", none over quota"}}, out...)
	}
	return out
}

// transitional are the phases a cluster passes through on its way to Ready or gone.
var transitional = map[string]bool{"": true, "Pending": true, "Provisioning": true, "Installing": true, "Updating": true, "Deleting": true}

// checkClusters names every cluster Failed, or in a transitional phase for longer than
// StuckAfter (since its last transition, else since it was created).
func checkClusters(ctx context.Context, e *env) []Check {
	read, _ := e.teams(ctx) // their read failures are checkQuotas' findings
	var out []Check
	n := 0
	for _, tc := range read {
		for i := range tc.clusters {
			n++
			if c, stuck := stuckCluster(&tc.clusters[i], e.o.Now(), e.o.StuckAfter); stuck {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 && len(read) > 0 {
		return []Check{{Name: "clusters", Verdict: Pass, Detail: count(n, "cluster") + ", none failed or stuck"}}
	}
	return out
}

func stuckCluster(c *v1alpha1.TenantCluster, now time.Time, after time.Duration) (Check, bool) {
	ref := inert.Text(c.Namespace + "/" + c.Name)
	next := "butlerctl cluster describe " + inert.Text(c.Name) + " -n " + inert.Text(c.Namespace) + " (its conditions and events say why)"
	phase := c.Status.Phase
	if phase == "Failed" {
		return Check{Name: "cluster " + ref, Verdict: Fail, Detail: "phase Failed", Next: next}, true
	}
	if !transitional[phase] {
		return Check{}, false
	}
	since := c.CreationTimestamp.Time
	if t := c.Status.LastTransitionTime; t != nil {
		since = t.Time
	}
	if since.IsZero() || now.Sub(since) < after {
		return Check{}, false
	}
	if phase == "" {
		phase = "no phase"
	}
	return Check{Name: "cluster " + ref, Verdict: Fail,
		Detail: fmt.Sprintf("%s for %s (more than %s)", inert.Text(phase), now.Sub(since).Round(time.Minute), after), Next: next}, true
}
