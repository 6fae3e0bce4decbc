package upgrade

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterwatch"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/progress"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Plan is the upgrade's plan, the command's view (docs/output.md).
type Plan struct {
	Cluster         string   `json:"cluster"`
	Namespace       string   `json:"namespace"`
	Team            string   `json:"team"`
	Environment     string   `json:"environment,omitempty"`
	ResourceVersion string   `json:"resourceVersion,omitempty"`
	From            string   `json:"from"`
	To              string   `json:"to"`
	Kind            string   `json:"kind"`
	AllowedVersions []string `json:"allowedVersions"`
	// Path is the supported way to To when the upgrade skips a minor version.
	Path       []string    `json:"path,omitempty"`
	Allowed    bool        `json:"allowed"`
	Violations []Violation `json:"violations"`
	Warnings   []string    `json:"warnings,omitempty"`
}

// Violation is one refusal, as cluster scale and create print them.
type Violation struct {
	Field   string `json:"field"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Rule    string `json:"rule"`
}

// plan checks the version path (pkg/policy.PlanUpgrade) and the server's update rules on
// the cluster at the new version (the team's allowed versions among them).
func plan(ctx context.Context, errOut io.Writer, s store.Reader, team *v1alpha1.Team, cur *v1alpha1.TenantCluster, to string, actor lookup.Actor) (*Plan, error) {
	var allowed []string
	if lim := team.Spec.ResourceLimits; lim != nil {
		allowed = lim.AllowedKubernetesVersions
	}
	up, err := policy.PlanUpgrade(cur.Spec.KubernetesVersion, to, allowed)
	if err != nil {
		return nil, cmdutil.UsageError("tenant cluster %q: spec.kubernetesVersion: %v", cur.Name, err)
	}
	p := &Plan{Cluster: cur.Name, Namespace: cur.Namespace, Team: team.Name, Environment: cur.Environment(),
		ResourceVersion: cur.ResourceVersion, From: up.From, To: up.To, Kind: up.Kind,
		AllowedVersions: append([]string{}, allowed...), Path: up.Path, Violations: []Violation{}}
	if up.Kind == policy.UpgradeNone {
		p.Allowed = true
		return p, nil
	}
	updated := cur.DeepCopy()
	updated.Spec.KubernetesVersion = up.To
	d, err := lookup.AdmitUpdate(ctx, s, team, cur, updated, actor, errOut)
	if err != nil {
		return nil, err
	}
	all := append(append([]policy.Violation{}, up.Violations...), d.Violations...)
	for _, v := range all {
		p.Violations = append(p.Violations, Violation{Field: v.Error.Field, Type: string(v.Error.Type), Message: v.Error.Error(), Rule: v.Rule})
	}
	p.Warnings = d.Warnings()
	p.Allowed = len(all) == 0
	return p, nil
}

// err is the refusals as one error, in the server's aggregate form.
func (p *Plan) err() error {
	msgs := make([]string, len(p.Violations))
	for i, v := range p.Violations {
		msgs[i] = v.Message
	}
	if len(msgs) == 1 {
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}

// writePlan is the plan for people.
func writePlan(w io.Writer, p *Plan) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Upgrade plan for tenant cluster %s/%s (team %s", p.Namespace, p.Cluster, p.Team)
	if p.Environment != "" {
		fmt.Fprintf(tw, ", environment %s", p.Environment)
	}
	fmt.Fprintln(tw, "):")
	fmt.Fprintf(tw, "  Kubernetes:\t%s -> %s (%s)\n", p.From, p.To, p.Kind)
	allowed := "any (the team sets no allowedKubernetesVersions)"
	if len(p.AllowedVersions) > 0 {
		allowed = `"` + strings.Join(p.AllowedVersions, `", "`) + `"`
	}
	fmt.Fprintf(tw, "  Allowed versions:\t%s\n", allowed)
	if len(p.Path) > 0 {
		fmt.Fprintf(tw, "  Supported path:\t%s -> %s\n", p.From, strings.Join(p.Path, " -> "))
	}
	verdict := "allowed"
	if !p.Allowed {
		verdict = fmt.Sprintf("refused (%d)", len(p.Violations))
	}
	fmt.Fprintf(tw, "  Plan:\t%s\n", verdict)
	for _, v := range p.Violations {
		fmt.Fprintf(tw, "    - %s [%s]\n", inert.Text(v.Message), v.Rule)
	}
	return tw.Flush()
}

// deny prints the refused plan through the output path (people: the plan as text; the
// structured formats and -o jsonpath: the plan view; -o name: the cluster) and exits 4
// with the refusals on stderr. Nothing was sent.
func deny(pr *output.Printer, cur *v1alpha1.TenantCluster, p *Plan) error {
	err := pr.Print(output.Doc{
		One:      true,
		ViewOnly: true,
		Items:    []output.Item{{Object: cur, View: p}},
		Text:     func(w io.Writer) error { return writePlan(w, p) },
	})
	if err != nil {
		return err
	}
	return cmdutil.DeniedError(p.err())
}

// printDryRun prints the plan: people get it as text, programs the cluster as it would be
// written (--view: the plan).
func printDryRun(o *Options, cur *v1alpha1.TenantCluster, p *Plan) error {
	for _, w := range p.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", inert.Text(w))
	}
	would := cur.DeepCopy()
	would.Spec.KubernetesVersion = p.To
	return o.Printer.Print(output.Doc{
		One:   true,
		Items: []output.Item{{Object: would, View: p}},
		Text: func(w io.Writer) error {
			if err := writePlan(w, p); err != nil {
				return err
			}
			_, err := fmt.Fprintf(w, "%s would be upgraded: %s -> %s (dry run: nothing was sent)\n", resourceName(cur), p.From, p.To)
			return err
		},
	})
}

// upgradeGoal: Ready at the new version, as the controller reports it. A controller that
// reports no observed version is taken at its observedGeneration.
func upgradeGoal(version string) clusterwatch.Goal {
	return clusterwatch.Goal{
		What: "Ready at " + version,
		Reached: func(c *v1alpha1.TenantCluster) bool {
			if c.Status.Phase != clusterwatch.PhaseReady {
				return false
			}
			if obs := c.Status.ObservedState; obs != nil && obs.KubernetesVersion != "" {
				got, err := policy.NormalizeVersion(obs.KubernetesVersion)
				return err == nil && got == version
			}
			return c.Status.ObservedGeneration >= c.Generation
		},
		Left: "the upgrade was sent and goes on",
	}
}

// wait follows the cluster until it is Ready at the new version, with progress on stderr.
func wait(ctx context.Context, s shared.Watched, c *v1alpha1.TenantCluster, o *Options) error {
	cs, err := s.Server()
	if err != nil {
		return err
	}
	rep := progress.New(o.IO, progress.ModeFor(o.IO, o.Print.Structured()))
	last := ""
	report := func(c *v1alpha1.TenantCluster) {
		v := ""
		if obs := c.Status.ObservedState; obs != nil {
			v = obs.KubernetesVersion
		}
		line := fmt.Sprintf("TenantCluster %s/%s: phase %s, version %s", c.Namespace, c.Name, orNone(c.Status.Phase), orNone(v))
		rep.Status("%s", line)
		if line != last {
			rep.Line("%s", line)
			last = line
		}
	}
	got, err := clusterwatch.Wait(ctx, clusterwatch.One{Get: s.GetCluster, Watch: cs.WatchCluster}, c.Namespace, c.Name, o.Timeout, upgradeGoal(o.Version), report)
	rep.End(false)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "TenantCluster %s/%s is Ready at %s\n", got.Namespace, got.Name, o.Version)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none yet"
	}
	return s
}
