// Package get is `env get`: effective defaults with their sources, caps with usage, access.
package get

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Fields are the clusterDefaults field names, in the CRD's order.
var Fields = []string{"kubernetesVersion", "workerCount", "workerCPU", "workerMemoryGi", "workerDiskGi", "defaultAddons"}

// Value is one effective default and where it came from.
type Value struct {
	Value  any           `json:"value"`
	Source policy.Source `json:"source"`
}

// View is env get's computed view, printed by -o json|yaml|jsonpath|go-template (docs/output.md).
type View struct {
	Name        string               `json:"name"`
	Team        string               `json:"team"`
	Description string               `json:"description,omitempty"`
	Defaults    map[string]Value     `json:"defaults"`
	Caps        Caps                 `json:"caps"`
	Access      []policy.AccessEntry `json:"access"`
}

// Caps are the environment's caps and what is used of them.
type Caps struct {
	Clusters             int            `json:"clusters"`
	MaxClusters          int32          `json:"maxClusters,omitempty"`
	MaxClustersPerMember int32          `json:"maxClustersPerMember,omitempty"`
	Members              map[string]int `json:"members,omitempty"`
}

// Spec is what env get prints: its computed view (View), as an environment is part of its
// Team, not an API object of its own. Wide is accepted and shows the same text.
var Spec = output.Spec{Wide: true}

// Store is what env get reads: the team, its clusters and providers.
type Store = store.Reader

// Options are the flags and arguments of env get.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Name string
	Team string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "get ENV --team TEAM",
		Short: "Show an environment: effective defaults and their sources, caps with usage, access",
		Example: `  butlerctl env get prod --team payments --manifests examples/payments
  butlerctl env get prod --team payments -o jsonpath='{.defaults.kubernetesVersion.value}'`,
		Args: cmdutil.ExactArgs(1, "an environment name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmdutil.TeamFlag(cmd.Flags(), &o.Team, cmdutil.TeamRequired)
	return cmd
}

// Defaults resolves an environment's effective defaults, keyed by field name.
func Defaults(d policy.Defaults) map[string]Value {
	addons := d.Addons
	if addons == nil {
		addons = []string{}
	}
	m := map[string]Value{
		"kubernetesVersion": {d.KubernetesVersion, d.Sources["kubernetesVersion"]},
		"workerCount":       {d.WorkerCount, d.Sources["workerCount"]},
		"workerCPU":         {d.WorkerCPU, d.Sources["workerCPU"]},
		"workerMemoryGi":    {gi(d.WorkerMemory.Value()), d.Sources["workerMemoryGi"]},
		"workerDiskGi":      {gi(d.WorkerDisk.Value()), d.Sources["workerDiskGi"]},
		"defaultAddons":     {addons, d.Sources["defaultAddons"]},
	}
	return m
}

// gi prints bytes as whole Gi when they are, else as bytes.
func gi(b int64) any {
	const g = 1 << 30
	if b%g == 0 {
		return b / g
	}
	return b
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, o.Team)
	if err != nil {
		return err
	}
	e, err := lookup.RequireEnvironment(t, o.Name)
	if err != nil {
		return err
	}
	d, err := policy.ResolveDefaults(t, o.Name, policy.Explicit{})
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	u := policy.EnvironmentUsageOf(t, o.Name, clusters)
	v := View{Name: e.Name, Team: t.Name, Description: e.Description, Defaults: Defaults(d),
		Caps:   Caps{Clusters: u.Clusters, MaxClusters: u.MaxClusters, MaxClustersPerMember: u.MaxClustersPerMember, Members: u.Members},
		Access: policy.AccessTable(t, o.Name)}
	color, width := o.IO.ColorEnabled(), o.IO.Width()
	return o.Printer.Print(output.Doc{
		One:  true,
		View: v,
		Text: func(w io.Writer) error { return describe(w, v, d.Addons, color, width) },
	})
}

// describe is the human output: the defaults with their sources, the caps with what is
// used of them, then who may do what.
func describe(out io.Writer, v View, addons []string, color bool, width int) error {
	fmt.Fprintf(out, "Environment: %s\nTeam:        %s\n", inert.Text(v.Name), inert.Text(v.Team))
	if v.Description != "" {
		fmt.Fprintf(out, "Description: %s\n", inert.Text(v.Description))
	}
	fmt.Fprintln(out)
	dt := tables.NewTable(color, "FIELD", "VALUE", "SOURCE")
	dt.Width = width // fit the terminal (tables.Table.fit)
	for _, k := range Fields {
		val := v.Defaults[k]
		text := fmt.Sprint(val.Value)
		if k == "defaultAddons" {
			text = strings.Join(addons, ",")
		}
		dt.Row(k, tables.Dash(text), tables.Dash(string(val.Source)))
	}
	if err := dt.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	ct := tables.NewTable(color, "CAP", "USED", "LIMIT")
	ct.Width = width
	ct.Row("clusters", strconv.Itoa(v.Caps.Clusters), tables.Cap(v.Caps.MaxClusters))
	members := make([]string, 0, len(v.Caps.Members))
	for m := range v.Caps.Members {
		members = append(members, m)
	}
	sort.Strings(members)
	for _, m := range members {
		ct.Row("clusters of "+m, strconv.Itoa(v.Caps.Members[m]), tables.Cap(v.Caps.MaxClustersPerMember))
	}
	if err := ct.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	at := tables.NewTable(color, "USER", "ROLE", "SOURCE", "WHY")
	at.Width = width
	for _, a := range v.Access {
		at.Row(a.User, a.Role, a.Source, a.Reason)
	}
	return at.Render(out)
}
