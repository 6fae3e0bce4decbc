package create

import (
	"fmt"
	"io"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// fieldOrder is the clusterDefaults field order of docs/rules.md §4.
var fieldOrder = []string{"kubernetesVersion", "workerCount", "workerCPU", "workerMemoryGi", "workerDiskGi", "defaultAddons"}

// Explanation is the -o json|yaml form of --explain.
type Explanation struct {
	Cluster  string                    `json:"cluster"`
	Team     string                    `json:"team"`
	Env      string                    `json:"environment,omitempty"`
	User     string                    `json:"user"`
	Role     string                    `json:"role"`
	Allowed  bool                      `json:"allowed"`
	Defaults map[string]ExplainedField `json:"defaults"`
	Options  []shared.ExplainedOption  `json:"options,omitempty"`
	Checks   []policy.Check            `json:"checks"`
}

// ExplainedField is one value and where it came from.
type ExplainedField struct {
	Value  any           `json:"value"`
	Source policy.Source `json:"source"`
}

func values(d policy.Defaults) map[string]any {
	return map[string]any{
		"kubernetesVersion": d.KubernetesVersion,
		"workerCount":       d.WorkerCount,
		"workerCPU":         d.WorkerCPU,
		"workerMemoryGi":    d.WorkerMemory.String(),
		"workerDiskGi":      d.WorkerDisk.String(),
		"defaultAddons":     d.Addons,
	}
}

// sourceText is the hint a person reads, as the console words it.
func sourceText(s policy.Source) string {
	switch s {
	case policy.SourceExplicit:
		return "set explicitly"
	case policy.SourceEnv:
		return "from env default"
	case policy.SourceTeam:
		return "from team default"
	case policy.SourceTeamLimits:
		return "from team limits default"
	case policy.SourceBuiltIn:
		return "built-in default"
	case "":
		return "-"
	}
	return "from " + string(s)
}

// explain prints --explain: for people the values, options and checks as tables, for
// programs the Explanation (a view: there is no object yet).
func explain(o *Options, p *plan) error {
	vals := values(p.Defaults)
	e := Explanation{
		Cluster: p.Cluster.Namespace + "/" + p.Cluster.Name, Team: o.Team, Env: o.Environment,
		User: p.Actor.Identity.Username, Role: p.Role.Role.String(), Allowed: p.Decision.Allowed(),
		Defaults: map[string]ExplainedField{}, Options: p.Options, Checks: p.Decision.Checks,
	}
	for _, k := range fieldOrder {
		e.Defaults[k] = ExplainedField{Value: vals[k], Source: p.Defaults.Sources[k]}
	}
	return o.Printer.Print(output.Doc{One: true, View: e, ViewOnly: true, Text: func(out io.Writer) error {
		return explainText(o, out, p)
	}})
}

func explainText(o *Options, out io.Writer, p *plan) error {
	vals := values(p.Defaults)
	st := tables.NewStyles(o.IO.ColorEnabled())
	// Two short lines rather than one of 140 columns: what, then who.
	fmt.Fprintf(out, "TenantCluster %s/%s for team %q", inert.Text(p.Cluster.Namespace), inert.Text(p.Cluster.Name), o.Team)
	if o.Environment != "" {
		fmt.Fprintf(out, " in environment %q", o.Environment)
	}
	fmt.Fprintf(out, "\nrequested by %s: %s (%s)\n\n", inert.Text(p.Actor.Identity.Username), p.Role.Role, inert.Text(p.Role.Reason))

	t := tables.NewTable(o.IO.ColorEnabled(), "FIELD", "VALUE", "SOURCE")
	t.Width = o.IO.Width()
	for _, k := range fieldOrder {
		v := fmt.Sprint(vals[k])
		if k == "defaultAddons" {
			v = strings.Join(p.Defaults.Addons, ",")
			if v == "" {
				v = "-"
			}
		}
		t.Row(k, v, sourceText(p.Defaults.Sources[k]))
	}
	if err := t.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if err := explainOptions(o, out, p.Options); err != nil {
		return err
	}
	q := tables.NewTable(o.IO.ColorEnabled(), "CHECK", "LIMIT", "BEFORE", "REQUESTED", "AFTER", "RESULT")
	q.Width = o.IO.Width()
	clientSide := false
	for _, c := range p.Decision.Checks {
		res := st.Good("ok")
		switch {
		case !c.Allowed:
			res = st.Bad("denied")
		case c.Warning != "":
			res = "warning"
		}
		rule := policy.RuleTitle(c.Rule)
		if c.ClientSide {
			rule += "*" // this project's policy, not Butler's (policy.BeyondButler)
			clientSide = true
		}
		cell := func(v string) string { return tables.Dash(shortCell(v, p.Actor.Identity.Username)) }
		q.Row(rule, cell(c.Limit), cell(c.Usage), cell(c.Requested), cell(c.After), res)
	}
	if err := q.Render(out); err != nil {
		return err
	}
	if clientSide {
		fmt.Fprintln(out, "* butler-toolkit's policy, not Butler's: its webhook enforces it unless switched off (webhook serve --without-rule)")
	}
	fmt.Fprintln(out)
	for _, w := range p.Decision.Warnings() {
		fmt.Fprintf(out, "Warning: %s\n", inert.Text(w))
	}
	if p.Decision.Allowed() {
		fmt.Fprintf(out, "%s: every check passes\n", st.Good("Allowed"))
	} else {
		fmt.Fprintf(out, "%s: %d check(s) fail\n", st.Bad("Denied"), len(p.Decision.Violations))
	}
	return nil
}

// shortCell words a check's figure for a table 80 columns wide: the requester (named above
// the table) is "you", a ProviderConfig in the default namespace goes by its name. The
// -o json view keeps the figures as they are.
func shortCell(v, user string) string {
	switch {
	case v != "" && policy.NormalizeEmail(v) == policy.NormalizeEmail(user):
		return "you"
	case strings.HasPrefix(v, v1alpha1.DefaultProviderNamespace+"/"):
		return strings.TrimPrefix(v, v1alpha1.DefaultProviderNamespace+"/")
	}
	return v
}

// explainOptions prints the options table of --explain.
func explainOptions(o *Options, out io.Writer, opts []shared.ExplainedOption) error {
	if len(opts) == 0 {
		return nil
	}
	t := tables.NewTable(o.IO.ColorEnabled(), "OPTION", "VALUE", "SOURCE", "POLICY", "TIER", "MODE", "VALUES", "RECOMMENDED")
	t.Width, t.Drop = o.IO.Width(), []string{"TIER", "POLICY"}
	for _, e := range opts {
		rec := "-"
		if e.Mode == v1alpha1.ModeRecommended {
			rec = strings.Join(e.Values, ",")
			if e.RecommendedReason != "" {
				rec += " (" + e.RecommendedReason + ")"
			}
		}
		values := strings.Join(e.Values, ",")
		if e.Mode == v1alpha1.ModeDefault {
			values = e.Default
		}
		t.Row(e.Option, tables.Dash(e.Value), sourceText(e.Source), tables.Dash(e.Policy), tables.Dash(e.Tier), tables.Dash(e.Mode), tables.Dash(values), rec)
	}
	if err := t.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	return nil
}
