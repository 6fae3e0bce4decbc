// Package get is `env get`: effective defaults with their sources, caps with usage, access.
package get

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Fields are the clusterDefaults field names, in the contract's order.
var Fields = []string{"kubernetesVersion", "workerCount", "workerCPU", "workerMemoryGi", "workerDiskGi", "defaultAddons"}

// Value is one effective default and where it came from.
type Value struct {
	Value  any           `json:"value"`
	Source policy.Source `json:"source"`
}

// View is env get in -o json|yaml.
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

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	var team string
	cmd := &cobra.Command{
		Use:     "get ENV --team TEAM",
		Short:   "Show an environment: effective defaults and their sources, caps with usage, access",
		Example: `  butlerctl env get prod --team payments --manifests examples/payments`,
		Args:    cmdutil.ExactArgs(1, "an environment name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), f, team, args[0])
		},
	}
	cmd.Flags().StringVar(&team, "team", "", "Team (required)")
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

func run(ctx context.Context, f *factory.Factory, team, env string) error {
	if err := f.ValidateOutput("table", "wide", "json", "yaml"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, clusters, err := lookup.TeamClusters(ctx, s, team)
	if err != nil {
		return err
	}
	e, err := lookup.RequireEnvironment(t, env)
	if err != nil {
		return err
	}
	d, err := policy.ResolveDefaults(t, env, policy.Explicit{})
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	u := policy.EnvironmentUsageOf(t, env, clusters)
	v := View{Name: e.Name, Team: t.Name, Description: e.Description, Defaults: Defaults(d),
		Caps:   Caps{Clusters: u.Clusters, MaxClusters: u.MaxClusters, MaxClustersPerMember: u.MaxClustersPerMember, Members: u.Members},
		Access: policy.AccessTable(t, env)}
	out := f.IOStreams.Out
	if f.Options.Output == "json" || f.Options.Output == "yaml" {
		return printers.Print(out, f.Options.Output, v)
	}
	color := f.IOStreams.ColorEnabled()
	fmt.Fprintf(out, "Environment: %s\nTeam:        %s\n", e.Name, t.Name)
	if e.Description != "" {
		fmt.Fprintf(out, "Description: %s\n", e.Description)
	}
	fmt.Fprintln(out)
	dt := printers.NewTable(color, "FIELD", "VALUE", "SOURCE")
	for _, k := range Fields {
		val := v.Defaults[k]
		text := fmt.Sprint(val.Value)
		if k == "defaultAddons" {
			text = strings.Join(d.Addons, ",")
		}
		if text == "" {
			text = "-"
		}
		src := string(val.Source)
		if src == "" {
			src = "-"
		}
		dt.Row(k, text, src)
	}
	if err := dt.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	ct := printers.NewTable(color, "CAP", "USED", "LIMIT")
	ct.Row("clusters", strconv.Itoa(u.Clusters), printers.Cap(u.MaxClusters))
	members := make([]string, 0, len(u.Members))
	for m := range u.Members {
		members = append(members, m)
	}
	sort.Strings(members)
	for _, m := range members {
		ct.Row("clusters of "+m, strconv.Itoa(u.Members[m]), printers.Cap(u.MaxClustersPerMember))
	}
	if err := ct.Render(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	at := printers.NewTable(color, "USER", "ROLE", "SOURCE", "WHY")
	for _, a := range v.Access {
		at.Row(a.User, a.Role, a.Source, a.Reason)
	}
	return at.Render(out)
}
