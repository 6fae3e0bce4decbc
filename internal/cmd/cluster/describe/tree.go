package describe

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// tree writes the view for people: one line per part, children under their parent.
type tree struct {
	color bool
	width int // cut lines to it when > 0 (a terminal)
	now   time.Time
}

// node is one line of the tree: a label, its value, and children.
type node struct {
	label, value string
	style        string // "good", "warn", "bad" or "": the value's colour on a terminal
	kids         []node
	table        [][]string // rows aligned in columns instead of label: value
}

func (t *tree) write(w io.Writer, v *View) error {
	root := t.nodes(v)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", t.paint("bold", fmt.Sprintf("TenantCluster %s/%s", v.Namespace, v.Cluster)))
	t.render(&b, root, "")
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *tree) nodes(v *View) []node {
	team := v.Team
	if v.Environment != "" {
		team += " (environment " + v.Environment + ")"
	}
	kube := v.Kubernetes.Version
	if v.Kubernetes.Observed != "" && v.Kubernetes.Observed != v.Kubernetes.Version {
		kube += " (running " + v.Kubernetes.Observed + ")"
	}
	phase := dash(v.Phase)
	if v.Created != nil {
		phase += ", created " + clusterview.HumanDuration(t.now.Sub(v.Created.Time)) + " ago"
	}
	out := []node{
		{label: "Team", value: team},
		{label: "Owner", value: dash(v.Owner)},
		{label: "Provider", value: dash(v.Provider)},
		{label: "Kubernetes", value: kube},
		{label: "Phase", value: phase, style: phaseStyle(v.Phase)},
		t.conditions(v),
		t.controlPlane(v),
		{label: "Workers", value: fmt.Sprintf("%d/%d ready", v.Workers.Ready, v.Workers.Desired), style: ratioStyle(v.Workers.Ready, v.Workers.Desired)},
		t.addons(v),
	}
	if ttl := t.expires(v); ttl != nil {
		out = append(out[:2], append([]node{*ttl}, out[2:]...)...) // after the owner
	}
	if v.Events != nil || v.Unreadable["events"] != "" {
		out = append(out, t.events(v))
	}
	return out
}

func (t *tree) conditions(v *View) node {
	n := node{label: "Conditions"}
	if len(v.Conditions) == 0 {
		n.value = "none reported"
	}
	for _, c := range v.Conditions {
		age := "-"
		if c.LastTransitionTime != nil && !c.LastTransitionTime.IsZero() {
			age = clusterview.HumanDuration(t.now.Sub(c.LastTransitionTime.Time))
		}
		n.table = append(n.table, []string{c.Type, t.paint(condStyle(c.Status), c.Status), dash(c.Reason), age, c.Message})
	}
	return n
}

func (t *tree) controlPlane(v *View) node {
	n := node{label: "Control plane"}
	switch cp := v.ControlPlane; {
	case v.Unreadable["controlPlane"] != "":
		n.value, n.style = "cannot be read: "+v.Unreadable["controlPlane"], "warn"
	case cp == nil:
		n.value = "not provisioned yet (no tenant namespace)"
	case !cp.Found:
		n.value = fmt.Sprintf("TenantControlPlane %s/%s not found (yet)", cp.Namespace, cp.Name)
	default:
		n.value = fmt.Sprintf("TenantControlPlane %s/%s", cp.Namespace, cp.Name)
		writes := cp.Writes + ": blocks " + cp.Blocked
		if cp.Status != "" {
			writes += " (" + cp.Status + ")"
		}
		style := ""
		if cp.Writes != "none" {
			style = "warn"
		}
		n.kids = []node{{label: "Writes", value: writes, style: style}}
	}
	return n
}

func (t *tree) addons(v *View) node {
	n := node{label: "Addons"}
	switch {
	case v.Unreadable["addons"] != "":
		n.value, n.style = "cannot be read: "+v.Unreadable["addons"], "warn"
	case len(v.Addons) == 0:
		n.value = "none"
	}
	for _, a := range v.Addons {
		n.table = append(n.table, []string{a.Addon, a.Version, t.paint(addonStyle(a.Phase), dash(a.Phase)), "(" + a.Name + ")"})
	}
	return n
}

func (t *tree) events(v *View) node {
	n := node{label: "Events"}
	switch {
	case v.Unreadable["events"] != "":
		n.value, n.style = "cannot be read: "+v.Unreadable["events"], "warn"
	case len(v.Events) == 0:
		n.value = "none"
	}
	for _, e := range v.Events {
		age := "-"
		if e.LastSeen != nil && !e.LastSeen.IsZero() {
			age = clusterview.HumanDuration(t.now.Sub(e.LastSeen.Time))
		}
		style := ""
		if e.Type != "Normal" {
			style = "warn"
		}
		n.table = append(n.table, []string{age, t.paint(style, e.Type), e.Reason, e.Message})
	}
	return n
}

// render writes nodes under prefix with box-drawing branches.
func (t *tree) render(b *strings.Builder, nodes []node, prefix string) {
	labelWidth := 0
	for _, n := range nodes {
		if len(n.label) > labelWidth {
			labelWidth = len(n.label)
		}
	}
	for i, n := range nodes {
		branch, indent := "├─ ", "│  "
		if i == len(nodes)-1 {
			branch, indent = "└─ ", "   "
		}
		line := prefix + branch + n.label
		if n.value != "" {
			line += ":" + strings.Repeat(" ", labelWidth-len(n.label)+1) + t.paint(n.style, n.value)
		}
		b.WriteString(t.cut(line) + "\n")
		if len(n.table) > 0 {
			t.renderTable(b, n.table, prefix+indent)
		}
		t.render(b, n.kids, prefix+indent)
	}
}

// renderTable writes rows as the children of a node, their columns aligned by printed
// width (colour codes take none).
func (t *tree) renderTable(b *strings.Builder, rows [][]string, prefix string) {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			if w := lipgloss.Width(inert.Cell(c, false)); w > widths[i] {
				widths[i] = w
			}
		}
	}
	for i, r := range rows {
		branch := "├─ "
		if i == len(rows)-1 {
			branch = "└─ "
		}
		var l strings.Builder
		for j, c := range r {
			l.WriteString(inert.Cell(c, false))
			if j < len(r)-1 {
				l.WriteString(strings.Repeat(" ", widths[j]-lipgloss.Width(inert.Cell(c, false))+2))
			}
		}
		b.WriteString(t.cut(prefix+branch+strings.TrimRight(l.String(), " ")) + "\n")
	}
}

// cut shortens a line to the terminal's width, with an ellipsis (never when piped); colour
// codes count for nothing and are kept whole.
func (t *tree) cut(line string) string {
	if t.width <= 0 {
		return line
	}
	return ansi.Truncate(line, t.width, "…")
}

func (t *tree) paint(style, s string) string {
	s = inert.Text(s) // values come from the manifests and the server
	if !t.color || style == "" {
		return s
	}
	// The decision to colour is the streams' (a terminal, no NO_COLOR): the renderer is
	// told the 16-colour profile rather than left to probe os.Stdout itself.
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	st := r.NewStyle()
	switch style {
	case "bold":
		st = st.Bold(true)
	case "good":
		st = st.Foreground(lipgloss.Color("2"))
	case "warn":
		st = st.Foreground(lipgloss.Color("3"))
	case "bad":
		st = st.Foreground(lipgloss.Color("1"))
	}
	return inert.Painted(st.Render(s))
}

func phaseStyle(p string) string {
	switch p {
	case "Ready":
		return "good"
	case "Failed":
		return "bad"
	case "":
		return ""
	}
	return "warn"
}

func condStyle(status string) string {
	switch status {
	case "True":
		return "good"
	case "False":
		return "bad"
	}
	return "warn"
}

func addonStyle(phase string) string {
	switch phase {
	case "Installed", "Healthy", "Ready":
		return "good"
	case "Failed", "Degraded":
		return "bad"
	}
	return ""
}

func ratioStyle(ready, desired int32) string {
	if ready >= desired {
		return "good"
	}
	return "warn"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// expires is the TTL line of a cluster with an expiry: the time left and the time itself.
func (t *tree) expires(v *View) *node {
	switch {
	case v.ExpiresInvalid != "":
		return &node{label: "Expires", value: "invalid: " + inert.Text(v.ExpiresInvalid) + " is no RFC 3339 time"}
	case v.Expires == nil:
		return nil
	case !v.Expires.After(t.now):
		return &node{label: "Expires", value: "expired " + clusterview.HumanDuration(t.now.Sub(v.Expires.Time)) + " ago (" + clusterttl.Format(v.Expires.Time) + ")"}
	}
	return &node{label: "Expires", value: "in " + clusterview.HumanDuration(v.Expires.Sub(t.now)) + " (" + clusterttl.Format(v.Expires.Time) + ")"}
}
