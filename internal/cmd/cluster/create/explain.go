package create

import (
	"fmt"
	"io"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
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
	Options  []ExplainedOption         `json:"options,omitempty"`
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
func explain(f *factory.Factory, p *plan, o *Options) error {
	vals := values(p.defaults)
	e := Explanation{
		Cluster: p.cluster.Namespace + "/" + p.cluster.Name, Team: o.Team, Env: o.Environment,
		User: p.actor.Identity.Username, Role: p.role.Role.String(), Allowed: p.decision.Allowed(),
		Defaults: map[string]ExplainedField{}, Options: p.options, Checks: p.decision.Checks,
	}
	for _, k := range fieldOrder {
		e.Defaults[k] = ExplainedField{Value: vals[k], Source: p.defaults.Sources[k]}
	}
	return o.Print.Printer(f.IOStreams).Print(output.Doc{One: true, View: e, ViewOnly: true, Text: func(out io.Writer) error {
		return explainText(f, out, p, o)
	}})
}

func explainText(f *factory.Factory, out io.Writer, p *plan, o *Options) error {
	vals := values(p.defaults)
	st := tables.NewStyles(f.IOStreams.ColorEnabled())
	// Two short lines rather than one of 140 columns: what, then who.
	fmt.Fprintf(out, "TenantCluster %s/%s for team %q", inert.Text(p.cluster.Namespace), inert.Text(p.cluster.Name), o.Team)
	if o.Environment != "" {
		fmt.Fprintf(out, " in environment %q", o.Environment)
	}
	fmt.Fprintf(out, "\nrequested by %s: %s (%s)\n\n", inert.Text(p.actor.Identity.Username), p.role.Role, inert.Text(p.role.Reason))

	t := tables.NewTable(f.IOStreams.ColorEnabled(), "FIELD", "VALUE", "SOURCE")
	t.Width = f.IOStreams.Width()
	for _, k := range fieldOrder {
		v := fmt.Sprint(vals[k])
		if k == "defaultAddons" {
			v = strings.Join(p.defaults.Addons, ",")
			if v == "" {
				v = "-"
			}
		}
		t.Row(k, v, sourceText(p.defaults.Sources[k]))
	}
	if err := t.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if err := explainOptions(f, out, p.options); err != nil {
		return err
	}
	q := tables.NewTable(f.IOStreams.ColorEnabled(), "CHECK", "LIMIT", "BEFORE", "REQUESTED", "AFTER", "RESULT")
	q.Width = f.IOStreams.Width()
	clientSide := false
	for _, c := range p.decision.Checks {
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
		cell := func(v string) string { return tables.Dash(shortCell(v, p.actor.Identity.Username)) }
		q.Row(rule, cell(c.Limit), cell(c.Usage), cell(c.Requested), cell(c.After), res)
	}
	if err := q.Render(out); err != nil {
		return err
	}
	if clientSide {
		fmt.Fprintln(out, "* butler-toolkit's policy, not Butler's: its webhook enforces it unless switched off (webhook serve --without-rule)")
	}
	fmt.Fprintln(out)
	for _, w := range p.decision.Warnings() {
		fmt.Fprintf(out, "Warning: %s\n", inert.Text(w))
	}
	if p.decision.Allowed() {
		fmt.Fprintf(out, "%s: every check passes\n", st.Good("Allowed"))
	} else {
		fmt.Fprintf(out, "%s: %d check(s) fail\n", st.Bad("Denied"), len(p.decision.Violations))
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
